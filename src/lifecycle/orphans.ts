import { parseTransaction, recoverTransactionAddress, type TransactionSerialized } from "viem";
import type { KeyLeaseStore } from "../chain/key-lease-store";
import { type Logger, shortReason } from "../logger";

/** What every unfinished record (EOA, x402, swap settlement; a deployment step) tells about who may own it. */
export type UnfinishedRecord = {
  network: string;
  status: string;
  rawTx: string | null;
  /** ISO time of the record's last write. */
  updatedAt: string;
};

/** Which unfinished records a reconciliation may take: all of them, or only another instance's orphans. */
export type RecordFilter = (record: UnfinishedRecord) => Promise<boolean>;

export const everyRecord: RecordFilter = async () => true;

/** The executor address that signed a record's transaction (null when nothing was signed or it cannot be read). */
export async function senderOf(rawTx: string | null): Promise<string | null> {
  if (!rawTx) return null;
  try {
    return (await recoverTransactionAddress({ serializedTransaction: rawTx as TransactionSerialized })).toLowerCase();
  } catch {
    return null;
  }
}

/**
 * The records in the order their transactions can be mined: those never signed first, then by the signed
 * transaction's nonce (so each key's in nonce order). Record ids follow claims, not signatures: two settles claim
 * in one order and sign in the other, and a resumed transaction whose lower nonce is resumed after it would wait
 * out its whole receipt timeout.
 */
export function inNonceOrder<T extends { rawTx: string | null }>(records: readonly T[]): T[] {
  const nonceOf = (record: T) => {
    if (!record.rawTx) return -1;
    try {
      return parseTransaction(record.rawTx as TransactionSerialized).nonce ?? -1;
    } catch {
      return -1;
    }
  };
  return records
    .map((record) => ({ record, nonce: nonceOf(record) }))
    .sort((x, y) => x.nonce - y.nonce)
    .map(({ record }) => record);
}

export type OrphanPolicy = {
  /**
   * A record never signed (pending) that nobody wrote for this long has no live owner: a settle moves its record
   * from pending to sent within one prepare (fees, nonce, signature).
   */
  staleMs: number;
  /** The network's executor addresses (lower case) with a live lease, and whether the holder is this instance. */
  leases(network: string): Promise<Map<string, "mine" | "theirs">>;
  /** Executor addresses whose lease this instance took over from a dead holder: their sent records are orphans. */
  takenOver?: ReadonlySet<string>;
  /** Unix ms. */
  now?: () => number;
};

/**
 * With several instances on one database, the unfinished records another instance is still working on must be left
 * to it. A sent record belongs to whoever leases the key that signed it: a live instance awaits its receipt (or
 * resumes it on a retry); a key nobody leases any more (its holder died, or shut down with it in flight) leaves an
 * orphan, resolved at once from its signed transaction. A pending record was never signed: it is an orphan only
 * once untouched for `staleMs`, since it may be in a live instance's prepare.
 */
export function orphansOnly(policy: OrphanPolicy): RecordFilter {
  const now = policy.now ?? Date.now;
  const leases = new Map<string, Promise<Map<string, "mine" | "theirs">>>();
  return async (record) => {
    const sender = await senderOf(record.rawTx);
    if (sender && policy.takenOver?.has(sender)) return true;
    if (record.status !== "sent" || !sender) return now() - Date.parse(record.updatedAt) >= policy.staleMs;
    let leased = leases.get(record.network);
    if (!leased) {
      leased = policy.leases(record.network);
      leases.set(record.network, leased);
    }
    return !(await leased).has(sender);
  };
}

/** The key_leases rows that serve as named locks: network "_lock", the lock's name as the "address". */
const LOCK_NETWORK = "_lock";
/**
 * The locks this process holds, by holder and name. A lease row lets its own holder take it again (that is how a key
 * lease is renewed), so without this a second sweep of the same instance (the periodic timer firing while a long sweep
 * waits for receipts) would run beside the first, and the first one's release would free the lock under the second.
 */
const heldHere = new Set<string>();

/**
 * Runs `work` while holding a named lock shared by every instance on the database; answers false at once, without
 * running it, when another instance holds it, or this one does (the lock is not reentrant). The lock is a lease row
 * renewed every third of `ttlMs` while the work runs, as key leases are: a sweep may wait minutes for receipts and
 * keep it, and a holder that dies (its work cut short at any step) frees it within `ttlMs`, not after the longest
 * sweep. Reconciliation of another instance's work runs under one, so two instances never resume the same records.
 */
export async function underDatabaseLock(
  leases: KeyLeaseStore,
  lock: { name: string; holder: string; ttlMs: number },
  work: () => Promise<void>,
): Promise<boolean> {
  const here = `${lock.holder}\n${lock.name}`;
  if (heldHere.has(here)) return false;
  heldHere.add(here);
  try {
    if (!(await leases.take(LOCK_NETWORK, lock.name, lock.holder, lock.ttlMs))) return false;
    const renewal = setInterval(
      () => void leases.renew(LOCK_NETWORK, lock.name, lock.holder, lock.ttlMs).catch(() => undefined),
      Math.max(1, Math.floor(lock.ttlMs / 3)),
    );
    try {
      await work();
    } finally {
      clearInterval(renewal);
      await leases.release(LOCK_NETWORK, lock.name, lock.holder);
    }
    return true;
  } finally {
    heldHere.delete(here);
  }
}

/** The network's addresses with an unexpired lease, each "mine" (held by `me`) or "theirs" (read once per sweep). */
export async function liveLeases(
  leases: KeyLeaseStore,
  network: string,
  me: string,
): Promise<Map<string, "mine" | "theirs">> {
  const now = Date.now();
  // expiresAt is the database's clock; a second of margin covers the difference between the two clocks.
  const live = (await leases.leases(network)).filter((row) => row.expiresAt + 1_000 > now);
  return new Map(live.map((row) => [row.address.toLowerCase(), row.holder === me ? "mine" : "theirs"]));
}

export type OrphanSweeper = {
  /** One sweep under the lock now (at start, after a takeover); false when another instance was sweeping. */
  sweep(takenOver?: ReadonlySet<string>): Promise<boolean>;
  stop(): void;
};

/**
 * Periodically, under the database lock, reconciles the orphans of other instances: what a crashed instance left
 * pending or sent is finished by exactly one of the others, through the same reconciliations as a restart.
 */
export function startOrphanSweeper(deps: {
  leases: KeyLeaseStore;
  instanceId: string;
  intervalMs: number;
  staleMs: number;
  /** The lock's lease, renewed while a sweep runs: how soon the lock of an instance that died sweeping is free. */
  lockTtlMs: number;
  /** Runs every reconciliation with the filter. */
  reconcile(filter: RecordFilter): Promise<void>;
  logger: Logger;
}): OrphanSweeper {
  let stopped = false;
  const sweep = async (takenOver?: ReadonlySet<string>) => {
    if (stopped) return false;
    const filter = orphansOnly({
      staleMs: deps.staleMs,
      takenOver,
      leases: (network) => liveLeases(deps.leases, network, deps.instanceId),
    });
    try {
      return await underDatabaseLock(
        deps.leases,
        { name: "reconciliation", holder: deps.instanceId, ttlMs: deps.lockTtlMs },
        () => deps.reconcile(filter),
      );
    } catch (error) {
      deps.logger.warn({ event: "orphan_sweep_failed", reason: shortReason(error) });
      return false;
    }
  };
  const timer = setInterval(() => void sweep(), deps.intervalMs);
  timer.unref?.();
  return {
    sweep,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
