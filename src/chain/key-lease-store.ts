import { type SQL, sql } from "drizzle-orm";

/** A lease this instance holds on one executor key, as the database wrote it. */
export type TakenLease = {
  /** When the lease ends unless renewed, unix ms of the database's clock (for display: compare nothing with it). */
  expiresAt: number;
  /**
   * The holder whose expired lease was taken over, when the key was not free: that instance died (or lost its
   * database) with the key, and what it left in flight must be resolved before the key sends again. Kept when the
   * same holder takes its own lease again, so a take whose answer was lost and is asked again still says so.
   */
  takenFrom: string | null;
};

export type LeaseRow = { address: string; holder: string; expiresAt: number; heartbeatAt: number };

/**
 * Where executor key leases live (the key_leases table), shared by every instance on one database. Every call is
 * one statement, so two instances racing for a key are decided by the database, never by a read then a write.
 * `leaseMs` is counted on the database's clock, so instances whose clocks disagree still agree on expiry.
 */
export interface KeyLeaseStore {
  /** Takes the key if it has no lease, its lease expired, or the lease is already `holder`'s; undefined if not. */
  take(network: string, address: string, holder: string, leaseMs: number): Promise<TakenLease | undefined>;
  /** Extends `holder`'s lease; false when the key is no longer `holder`'s (taken over after its lease expired). */
  renew(network: string, address: string, holder: string, leaseMs: number): Promise<boolean>;
  /** Deletes `holder`'s lease (nothing when it is not `holder`'s): the next taker finds the key free. */
  release(network: string, address: string, holder: string): Promise<void>;
  /** Every lease row of the network, expired ones included (for /health, metrics and tests). */
  leases(network: string): Promise<LeaseRow[]>;
}

/**
 * The three statements, written once for both dialects; `now` is the dialect's "unix milliseconds now". The take
 * is one upsert: a missing row is inserted; an existing one is overwritten only where it expired or is already
 * the taker's (the upsert's WHERE), and RETURNING answers a row only when the take happened. Concurrent takers
 * of one key queue on its row (or its primary key) and the first one's commit decides the others' WHERE.
 */
export function leaseStatements(now: SQL) {
  return {
    take: (network: string, address: string, holder: string, leaseMs: number) => sql`
      INSERT INTO key_leases (network, address, holder, expires_at, heartbeat_at, taken_from)
      VALUES (${network}, ${address}, ${holder}, ${now} + ${leaseMs}, ${now}, NULL)
      ON CONFLICT (network, address) DO UPDATE SET
        holder = excluded.holder,
        expires_at = excluded.expires_at,
        heartbeat_at = excluded.heartbeat_at,
        taken_from = CASE WHEN key_leases.holder = excluded.holder THEN key_leases.taken_from ELSE key_leases.holder END
      WHERE key_leases.expires_at < excluded.heartbeat_at OR key_leases.holder = excluded.holder
      RETURNING expires_at, taken_from`,
    renew: (network: string, address: string, holder: string, leaseMs: number) => sql`
      UPDATE key_leases SET expires_at = ${now} + ${leaseMs}, heartbeat_at = ${now}
      WHERE network = ${network} AND address = ${address} AND holder = ${holder}
      RETURNING expires_at`,
    release: (network: string, address: string, holder: string) => sql`
      DELETE FROM key_leases WHERE network = ${network} AND address = ${address} AND holder = ${holder}`,
    leases: (network: string) => sql`
      SELECT address, holder, expires_at, heartbeat_at FROM key_leases WHERE network = ${network} ORDER BY address`,
  };
}

export type RawLease = { expires_at: number | string; taken_from: string | null };
export type RawRow = { address: string; holder: string; expires_at: number | string; heartbeat_at: number | string };

export const toTaken = (row: RawLease | undefined): TakenLease | undefined =>
  row && { expiresAt: Number(row.expires_at), takenFrom: row.taken_from };
export const toLeaseRow = (row: RawRow): LeaseRow => ({
  address: row.address,
  holder: row.holder,
  expiresAt: Number(row.expires_at),
  heartbeatAt: Number(row.heartbeat_at),
});
