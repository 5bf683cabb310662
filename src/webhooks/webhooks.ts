import { checksumAddresses } from "../chain/checksum-addresses";
import type { FlowContext } from "../flow";
import { shortReason } from "../logger";
import { VERSION } from "../version";
import { nextAttemptAt } from "./backoff";
import { attemptDelivery, deliveryBody } from "./deliver";
import { endpointWants } from "./endpoint-match";
import { endpointViews } from "./endpoint-views";
import { renderEvent } from "./event-payload";
import type { OPERATOR_EVENTS } from "./event-types";
import { type WebhookSettings, webhookSettings } from "./settings";
import type { AttemptOutcome, DeliveryFilter, FannedOut, LeasedDelivery, WebhookStore } from "./webhook-store";

/** Events fanned out per round; attempts one instance has in flight at most. */
const BATCH = 100;
const MAX_IN_FLIGHT = 16;
/**
 * How long an attempt's lease lasts: its timeout, then as long again (at least 5 s) for the outcome's write and a
 * busy event loop, so that only a dead instance's lease runs out. A lease that ran out under a live instance costs
 * a duplicate delivery, which receivers deduplicate; a shorter lease makes a dead instance's deliveries wait less.
 */
export const deliveryLeaseMs = (timeoutMs: number) => timeoutMs + Math.max(5_000, timeoutMs);
const PURGE_EVERY_MS = 3_600_000;
/** How often a service without endpoints marks the events of background work fanned out. */
const IDLE_POLL_MS = 30_000;
const PURGE_PAGE = 5_000;

const iso = (ms = Date.now()) => new Date(ms).toISOString();

/**
 * The webhooks' worker: it fans the outbox's events out to the endpoints whose filters match (one delivery row
 * each), then delivers what is due, one lease per attempt, so that several instances on one PostgreSQL share the
 * work and a killed instance's deliveries are retried by another once its leases run out. It runs after every
 * settle this instance answers (src/http/app.ts calls `afterSending`) and every `pollMs` besides, for the events
 * written by background work and by other instances.
 */
export function createWebhooks(
  context: FlowContext,
  store: WebhookStore,
  settings: WebhookSettings = webhookSettings(context.config),
) {
  const { logger } = context;
  const owner = crypto.randomUUID();
  const endpoints = new Map(settings.endpoints.map((endpoint) => [endpoint.id, endpoint]));
  const endpointIds = [...endpoints.keys()];
  const userAgent = `relay402/${VERSION} (webhooks)`;
  const timers: ReturnType<typeof setInterval>[] = [];
  let round: Promise<void> | undefined;
  const inFlight = new Set<Promise<void>>();
  let again = false;
  let stopped = false;

  async function fanOutWaiting() {
    for (;;) {
      const events = await store.waitingEvents(BATCH);
      if (events.length === 0) return;
      const disabled = settings.endpoints.length > 0 ? await store.disabledEndpoints() : new Map();
      const fanned: FannedOut[] = [];
      for (const event of events) {
        // The record is read only for an event some endpoint may want (its type and network), so that a service
        // without endpoints, or with endpoints for other events, only marks events fanned out.
        const candidates = settings.endpoints.filter(
          (endpoint) => !disabled.has(endpoint.id) && endpointWants({ ...endpoint, payTo: undefined }, event),
        );
        const rendered = candidates.length > 0 ? await renderEvent(store, event) : undefined;
        const endpoints = rendered
          ? candidates
              .filter((endpoint) => endpointWants(endpoint, { ...event, payees: rendered.payees }))
              .map((endpoint) => endpoint.id)
          : [];
        // Addresses in their EIP-55 form, as every HTTP answer gives them (the lookup's record included).
        const payload = rendered ? JSON.stringify(checksumAddresses(rendered.data)) : null;
        fanned.push({ eventId: event.id, payload, endpoints });
      }
      await store.fanOutMany(fanned, iso());
      if (events.length < BATCH) return;
    }
  }

  async function attempt(delivery: LeasedDelivery) {
    const endpoint = endpoints.get(delivery.endpoint);
    if (!endpoint) return;
    const result = await attemptDelivery(
      endpoint.url,
      endpoint.secret,
      `msg_${delivery.event.id}`,
      deliveryBody(delivery.event),
      settings.timeoutMs,
      userAgent,
    );
    const now = Date.now();
    const failed = { lastStatus: result.status, lastError: result.error, nextAttemptAt: iso(now) };
    let outcome: AttemptOutcome;
    if (result.error === null) outcome = { ...failed, status: "delivered" };
    else if (result.status === 410) {
      // The receiver says it is gone for good: stop sending it anything until an admin enables it again.
      await store.setEndpointDisabled(endpoint.id, { at: iso(now), reason: "answered 410 Gone" });
      logger.warn({ event: "webhook_endpoint_disabled", endpoint: endpoint.id, reason: "answered 410 Gone" });
      outcome = { ...failed, status: "dead" };
    } else {
      const next = nextAttemptAt(
        delivery.attempts + 1,
        Date.parse(delivery.createdAt),
        now,
        settings.retryScheduleMs,
        settings.retryLimitMs,
      );
      outcome =
        next === undefined ? { ...failed, status: "dead" } : { ...failed, status: "pending", nextAttemptAt: iso(next) };
      if (next === undefined)
        logger.warn({
          event: "webhook_dead_lettered",
          endpoint: endpoint.id,
          deliveryId: delivery.id,
          reason: result.error,
        });
    }
    await store.recordAttempt(delivery.id, owner, outcome, iso(now));
  }

  /**
   * Leases what is due, up to the room left in flight, and starts each attempt without waiting for it: a receiver
   * that takes its time holds up no other delivery. A finished attempt wakes the worker for what waited for room.
   */
  async function deliverDue() {
    while (!stopped) {
      const room = MAX_IN_FLIGHT - inFlight.size;
      if (room <= 0) return;
      const now = Date.now();
      const leaseUntil = iso(now + deliveryLeaseMs(settings.timeoutMs));
      const leased = await store.leaseDue(owner, endpointIds, iso(now), leaseUntil, room);
      for (const delivery of leased) {
        const running: Promise<void> = attempt(delivery)
          .catch((error) => logger.warn({ event: "webhook_attempt_failed", reason: shortReason(error) }))
          .finally(() => {
            inFlight.delete(running);
            wake();
          });
        inFlight.add(running);
      }
      if (leased.length < room) return;
    }
  }

  /** Runs a round now, or once more after the one running: wake-ups while it runs are never lost. */
  function wake() {
    if (stopped) return;
    if (round) {
      again = true;
      return;
    }
    round = (async () => {
      do {
        again = false;
        try {
          await fanOutWaiting();
          await deliverDue();
        } catch (error) {
          logger.warn({ event: "webhook_round_failed", reason: shortReason(error) });
        }
      } while (again && !stopped);
    })().finally(() => {
      round = undefined;
    });
  }

  /** payment.pending: a payment sent longer ago than pendingAfter with no outcome yet, raised once per record. */
  async function sweepPending() {
    const cutoff = iso(Date.now() - settings.pendingAfterMs);
    let added = false;
    for (const row of await store.paymentRows({ status: "pending" }, 500)) {
      if (!row.sentAt || row.sentAt >= cutoff) continue;
      const event = {
        dedupeKey: `${row.source}:${row.id}:pending:${row.createdAt}`,
        type: "payment.pending" as const,
        source: row.source,
        recordId: row.id,
        network: row.network,
        endpoint: null,
        payload: null,
      };
      added = (await store.addEvent(event, iso())) || added;
    }
    if (added) wake();
  }

  async function purge() {
    const before = iso(Date.now() - settings.retentionMs);
    let purged = 0;
    for (let page = PURGE_PAGE; page === PURGE_PAGE && !stopped; ) {
      page = await store.purge(before, PURGE_PAGE);
      purged += page;
    }
    if (purged > 0) logger.info({ event: "webhook_outbox_purged", events: purged, before });
  }

  const background = (name: string, work: () => Promise<void>) => () =>
    work().catch((error) => logger.warn({ event: name, reason: shortReason(error) }));

  return {
    settings,
    wake,

    start() {
      // Without endpoints there is nothing to deliver: events are only marked fanned out, after each settle and
      // now and then for background work's, so an idle service does not read the outbox every second.
      timers.push(setInterval(wake, settings.endpoints.length > 0 ? settings.pollMs : IDLE_POLL_MS));
      const sweepEvery = Math.max(1_000, Math.min(settings.pendingAfterMs / 2, 15_000));
      timers.push(setInterval(background("webhook_pending_sweep_failed", sweepPending), sweepEvery));
      timers.push(setInterval(background("webhook_purge_failed", purge), PURGE_EVERY_MS));
      background("webhook_purge_failed", purge)();
      wake();
    },

    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await round;
      await Promise.all(inFlight);
    },

    /** An operator's alert: raised once per crossing below its threshold, whichever instance reads it first. */
    async alert(alert: {
      type: (typeof OPERATOR_EVENTS)[number];
      network: string;
      subject: string;
      below: boolean;
      /** The block the figure was read at: older readings than the state's last change are ignored. */
      block: bigint;
      data: Record<string, unknown>;
    }) {
      const key = `${alert.type}:${alert.network}:${alert.subject.toLowerCase()}`;
      const crossing = await store.crossAlert(key, alert.below, alert.block, iso());
      if (crossing === undefined) return false;
      const payload = JSON.stringify(alert.data);
      const event = {
        dedupeKey: `${key}:${crossing}`,
        type: alert.type,
        source: "operator" as const,
        recordId: null,
        network: alert.network,
        endpoint: null,
        payload,
      };
      const added = await store.addEvent(event, iso());
      if (added) wake();
      return added;
    },

    /** webhook.test to one endpoint, now. */
    /** false when the endpoint is disabled: no delivery could be made to it, now or once enabled. */
    async sendTest(endpointId: string) {
      if ((await store.disabledEndpoints()).has(endpointId)) return false;
      const payload = JSON.stringify({ endpoint: endpointId, message: "a test event from relay402" });
      const event = {
        dedupeKey: `test:${crypto.randomUUID()}`,
        type: "webhook.test" as const,
        source: "operator" as const,
        recordId: null,
        network: null,
        endpoint: endpointId,
        payload,
      };
      await store.addEvent(event, iso());
      wake();
      return true;
    },

    deliveries: (filter: DeliveryFilter) => store.deliveries(filter),

    /**
     * The deliveries of the events of one payment (a record may have several: pending, then settled), narrowed by
     * the listing's other filters.
     */
    async deliveriesOfPayment(paymentId: string, filter: Omit<DeliveryFilter, "record">) {
      const rows = await store.paymentRows({ paymentId }, 10);
      const lists = await Promise.all(
        rows.map((row) => store.deliveries({ ...filter, record: { source: row.source, recordId: row.id } })),
      );
      return lists
        .flat()
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
        .slice(0, filter.limit);
    },

    async replay(id: number) {
      const found = await store.replay(id, iso());
      if (found) wake();
      return found;
    },

    /** The configured endpoints (never their secrets), whether each is disabled, and its deliveries' counts. */
    endpoints: () => endpointViews(store, settings.endpoints),

    async enable(endpointId: string) {
      await store.setEndpointDisabled(endpointId, null);
      wake();
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
