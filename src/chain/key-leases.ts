import { type Logger, shortReason } from "../logger";
import type { KeyLeaseStore } from "./key-lease-store";

export type KeyLeasesOptions = {
  store: KeyLeaseStore;
  network: string;
  /** The network's configured executor key addresses. */
  addresses: readonly string[];
  /** This instance's holder id: random per process on PostgreSQL, one fixed id for the single SQLite instance. */
  instanceId: string;
  /** How many of the keys this instance asks for (default: all of them). */
  want?: number;
  /** A lease's length; it is renewed every third of it. */
  leaseMs: number;
  /**
   * How long before its lease can end the instance stops using a key it could not renew (default a quarter of
   * `leaseMs`): room for a transaction signed just before that moment to reach the node before another instance
   * may take the key over and read its pending nonce.
   */
  marginMs?: number;
  /**
   * Called once when a lease is taken over from another holder (its lease expired: it died or lost the database),
   * before the key is reported held: the wiring resolves that holder's in-flight transactions here (the
   * settlement journal's records in "sent" from this address) and restarts the key's nonce from the chain's
   * pending count. A failure leaves the key leased but unused; it is tried again at the next heartbeat.
   */
  onTakeover?: (address: string) => Promise<void> | void;
  /** The key stopped being held: its renewal found another holder ("stolen"), or it could not be renewed in time. */
  onLost?: (address: string, reason: "stolen" | "expired") => void;
  logger?: Logger;
};

export interface KeyLeases {
  readonly instanceId: string;
  /** Takes the first leases (one heartbeat), then heartbeats every third of the lease. */
  start(): Promise<void>;
  /** One round: renews the leases held, drops those lost, then asks for free or expired keys up to `want`. */
  heartbeat(): Promise<void>;
  /** The keys this instance may send with now (leased, resolved, and not within the margin of the lease's end). */
  held(): string[];
  holds(address: string): boolean;
  /** Stops heartbeating; releases the leases unless `release` is false (then they expire, as after a crash). */
  stop(options?: { release?: boolean }): Promise<void>;
}

type Lease = {
  address: string;
  /** performance.now() after which the key is not used: when the last successful take or renewal was sent, plus
   * the lease, minus the margin. Measured from the request's start, so it ends before the database's lease does. */
  usableUntil: number;
  /** The holder this lease was taken over from, until onTakeover succeeds. */
  unresolvedFrom: string | null;
  resolving: boolean;
};

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/**
 * Executor key leases of one network for one instance: which of the configured keys it may send with, so that on
 * one database each key sends from one instance at a time (its nonces are that instance's alone). The executor's
 * key pool is expected to reserve only keys `holds` answers true for; a key stops being held, without a timer,
 * once `usableUntil` has passed, so a key whose renewals failed is left `marginMs` before its lease can expire.
 */
export function createKeyLeases(options: KeyLeasesOptions): KeyLeases {
  const { store, network, instanceId, leaseMs } = options;
  const want = Math.min(options.want ?? options.addresses.length, options.addresses.length);
  const marginMs = options.marginMs ?? leaseMs / 4;
  if (!(leaseMs > 0) || !(marginMs >= 0) || marginMs >= leaseMs) throw new Error("key leases need 0 <= margin < lease");
  const leases = new Map<string, Lease>();
  /** The holder each key's takeover was last resolved from, so a re-take of our own row does not resolve again. */
  const resolvedFrom = new Map<string, string>();
  let running: Promise<void> | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let stopped = false;
  const log = options.logger;

  const usable = (lease: Lease) => lease.unresolvedFrom === null && performance.now() < lease.usableUntil;

  function drop(lease: Lease, reason: "stolen" | "expired") {
    if (leases.get(lease.address) !== lease) return;
    leases.delete(lease.address);
    log?.warn({ event: "key_lease_lost", network, address: lease.address, reason });
    options.onLost?.(lease.address, reason);
  }

  function resolve(lease: Lease) {
    const from = lease.unresolvedFrom;
    if (from === null || lease.resolving || stopped) return;
    lease.resolving = true;
    // Not awaited by the heartbeat: resolving may wait for receipts, and the other leases must be renewed meanwhile.
    void (async () => {
      try {
        await options.onTakeover?.(lease.address);
        resolvedFrom.set(lease.address, from);
        if (lease.unresolvedFrom === from) lease.unresolvedFrom = null;
        log?.info({ event: "key_lease_takeover_resolved", network, address: lease.address, from });
      } catch (error) {
        log?.warn({ event: "key_lease_takeover_failed", network, address: lease.address, reason: shortReason(error) });
      } finally {
        lease.resolving = false;
      }
    })();
  }

  async function renew(lease: Lease) {
    const sentAt = performance.now();
    try {
      if (await store.renew(network, lease.address, instanceId, leaseMs))
        lease.usableUntil = sentAt + leaseMs - marginMs;
      else drop(lease, "stolen");
    } catch (error) {
      log?.warn({ event: "key_lease_renew_failed", network, address: lease.address, reason: shortReason(error) });
    }
    if (performance.now() >= lease.usableUntil) drop(lease, "expired");
  }

  async function take(address: string) {
    const sentAt = performance.now();
    let taken: Awaited<ReturnType<KeyLeaseStore["take"]>>;
    try {
      taken = await store.take(network, address, instanceId, leaseMs);
    } catch (error) {
      log?.warn({ event: "key_lease_take_failed", network, address, reason: shortReason(error) });
      return;
    }
    // Kept even when stop() began meanwhile: stop() waits for this round and then releases it with the others.
    if (!taken) return;
    const from = taken.takenFrom !== null && resolvedFrom.get(address) !== taken.takenFrom ? taken.takenFrom : null;
    const lease: Lease = { address, usableUntil: sentAt + leaseMs - marginMs, unresolvedFrom: from, resolving: false };
    leases.set(address, lease);
    log?.info({ event: "key_lease_taken", network, address, ...(from ? { takenFrom: from } : {}) });
    resolve(lease);
  }

  async function round() {
    await Promise.all([...leases.values()].map(renew));
    for (const lease of leases.values()) resolve(lease); // takeovers whose resolution failed before
    // One take at a time, so an instance that reaches `want` stops asking and leaves the other keys to others.
    for (const address of shuffled(options.addresses.map((a) => a.toLowerCase()))) {
      if (stopped || leases.size >= want) break;
      if (!leases.has(address)) await take(address);
    }
  }

  function heartbeat(): Promise<void> {
    if (stopped) return Promise.resolve();
    running ??= round().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    instanceId,
    heartbeat,
    async start() {
      await heartbeat();
      timer ??= setInterval(() => void heartbeat(), leaseMs / 3);
      timer.unref?.();
    },
    held: () => [...leases.values()].filter(usable).map((lease) => lease.address),
    holds: (address) => {
      const lease = leases.get(address.toLowerCase());
      return lease !== undefined && usable(lease);
    },
    async stop({ release = true } = {}) {
      stopped = true;
      clearInterval(timer);
      await running;
      const released = [...leases.keys()];
      leases.clear();
      if (!release) return;
      await Promise.all(
        released.map((address) =>
          store.release(network, address, instanceId).catch((error) => {
            log?.warn({ event: "key_lease_release_failed", network, address, reason: shortReason(error) });
          }),
        ),
      );
    },
  };
}
