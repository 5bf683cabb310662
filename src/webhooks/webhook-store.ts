import type { RowFilter, SettlementRow } from "../dashboard/records";
import type { EventSource, WebhookEventType } from "./event-types";

/** An event as the outbox holds it. `payload` is null until it is fanned out (a trigger's event names only its row). */
export type OutboxEvent = {
  id: string;
  type: WebhookEventType;
  source: EventSource;
  recordId: string | null;
  network: string | null;
  /** The one endpoint of a test event; null: every endpoint whose filters match. */
  endpoint: string | null;
  payload: string | null;
  createdAt: string;
};

/** One event's fan-out: its payload (null: nothing to send) and the endpoints that get a delivery. */
export type FannedOut = { eventId: string; payload: string | null; endpoints: readonly string[] };

/** An event the service raises itself (payment.pending, an operator's alert, a test). */
export type NewEvent = Omit<OutboxEvent, "id" | "createdAt"> & { dedupeKey: string };

export type DeliveryStatus = "pending" | "delivered" | "dead";

/** A due delivery leased by this instance, with what its attempt sends. */
export type LeasedDelivery = {
  id: number;
  endpoint: string;
  attempts: number;
  createdAt: string;
  event: { id: string; type: string; payload: string; createdAt: string };
};

/** What an attempt ended with: delivered, dead (410, or out of time), or pending again at `nextAttemptAt`. */
export type AttemptOutcome = {
  status: DeliveryStatus;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string | null;
};

/** A delivery as the admin routes and the dashboard list it. */
export type DeliveryView = {
  id: number;
  eventId: string;
  type: string;
  source: string;
  recordId: string | null;
  network: string | null;
  endpoint: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
};

export type DeliveryFilter = {
  endpoint?: string;
  status?: DeliveryStatus;
  /** The deliveries of one record's events. */
  record?: { source: string; recordId: string };
  /** Deliveries created before this (the next page of a listing). */
  before?: string;
  limit: number;
};

/** Per endpoint: deliveries pending (never tried or retrying), failing (pending after a failure), delivered and dead. */
export type EndpointCounts = { pending: number; failing: number; delivered: number; dead: number };

/**
 * The webhooks' outbox on either database. Every write that several instances may race on is guarded by a key or
 * a condition: an event's dedupe key, a delivery's (event, endpoint), a lease taken only when free or expired.
 */
export type WebhookStore = {
  /** Events not fanned out yet, oldest first. */
  waitingEvents(limit: number): Promise<OutboxEvent[]>;
  /** A payment's record as the lookup reads it (src/dashboard/records.ts), by its table and key. */
  paymentRows(filter: RowFilter, limit: number): Promise<SettlementRow[]>;
  /** A funded approve's row, without its raw transactions. */
  fundedApproval(id: string): Promise<Record<string, unknown> | undefined>;
  /** Writes the payload, the deliveries to these endpoints and marks the event fanned out, in one transaction. */
  fanOut(eventId: string, payload: string | null, endpoints: readonly string[], now: string): Promise<void>;
  /** fanOut of several events in one transaction: a burst of settles costs one write, not one per event. */
  fanOutMany(items: readonly FannedOut[], now: string): Promise<void>;
  /** Adds an event unless one with its dedupe key exists; true when this call added it. */
  addEvent(event: NewEvent, now: string): Promise<boolean>;
  /** Leases up to `limit` due deliveries to these endpoints (none whose endpoint is disabled). */
  leaseDue(
    owner: string,
    endpoints: readonly string[],
    now: string,
    leaseUntil: string,
    limit: number,
  ): Promise<LeasedDelivery[]>;
  /** Records an attempt's outcome, if the lease is still this owner's. */
  recordAttempt(id: number, owner: string, outcome: AttemptOutcome, now: string): Promise<void>;
  disabledEndpoints(): Promise<Map<string, { disabledAt: string; reason: string | null }>>;
  setEndpointDisabled(id: string, disabled: { at: string; reason: string } | null): Promise<void>;
  deliveries(filter: DeliveryFilter): Promise<DeliveryView[]>;
  endpointCounts(): Promise<Map<string, EndpointCounts>>;
  /**
   * Makes a delivery due now with a new retry window (attempts kept; an attempt in flight keeps its lease and its
   * outcome stands); false when there is none with this id.
   */
  replay(id: number, now: string): Promise<boolean>;
  /** Deletes up to `limit` events created before `before` with their deliveries; answers how many events went. */
  purge(before: string, limit: number): Promise<number>;
  /**
   * An alert's state after a reading of `block`: below its threshold or not. Answers the crossing's number when this
   * call flipped it to below (the one caller that raises the event), else undefined. A reading of a block older than
   * the one that last changed the state changes nothing.
   */
  crossAlert(key: string, below: boolean, block: bigint, now: string): Promise<number | undefined>;
};
