import { appendFileSync, closeSync, existsSync, openSync, readFileSync, statSync, unlinkSync } from "node:fs";

/** One line of the ledger: a payment reserved before signing, then marked paid or released (it moved nothing). */
export type LedgerEntry = {
  key: string;
  state: "reserved" | "paid" | "released";
  network: string;
  token: string;
  to: string;
  /** Base units, as a decimal string. */
  amount: string;
  /** Unix ms of the reservation (the day window counts from it). */
  at: number;
  transaction?: string;
};

export type Caps = { perPayment?: bigint; perDay?: bigint; total?: bigint };

export type Reservation =
  | { kind: "new" }
  | { kind: "existing"; entry: LedgerEntry }
  | { kind: "refused"; limit: "perPayment" | "perDay" | "total"; cap: bigint; spent: bigint };

const DAY_MS = 24 * 60 * 60 * 1000;
/** A lock older than this belongs to a process that died holding it (holding it takes milliseconds). */
const STALE_LOCK_MS = 10_000;

/**
 * What the agent has spent, in an append-only JSON-lines file that survives restarts. A payment is reserved
 * (checked against the caps and appended) before it is signed, under an in-process queue and a lock file
 * (`<file>.lock`, created exclusively), so concurrent calls in one process or in several cannot both pass a cap
 * that only one fits. Each idempotency key is counted once, whatever its retries.
 */
export class SpendLedger {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly file: string) {}

  /** The latest entry of each key. */
  entries(): Map<string, LedgerEntry> {
    const byKey = new Map<string, LedgerEntry>();
    if (!existsSync(this.file)) return byKey;
    for (const line of readFileSync(this.file, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      // A line that does not parse throws: every payment is refused until the operator looks, rather than
      // counting less than was spent.
      const entry = JSON.parse(line) as LedgerEntry;
      const first = byKey.get(entry.key);
      // The window of a key stays its reservation's time.
      byKey.set(entry.key, first ? { ...entry, at: first.at } : entry);
    }
    return byKey;
  }

  /** Checks `entry` against `caps` and records it, or answers the key's existing entry, or the cap it breaks. */
  reserve(entry: Omit<LedgerEntry, "state">, caps: Caps, now = Date.now()): Promise<Reservation> {
    return this.exclusive(() => {
      const all = this.entries();
      const existing = all.get(entry.key);
      if (existing && existing.state !== "released") return { kind: "existing", entry: existing };
      const amount = BigInt(entry.amount);
      if (caps.perPayment !== undefined && amount > caps.perPayment) {
        return { kind: "refused", limit: "perPayment", cap: caps.perPayment, spent: 0n };
      }
      const { day, total } = spentOf(all, entry.network, entry.token, now);
      if (caps.perDay !== undefined && day + amount > caps.perDay) {
        return { kind: "refused", limit: "perDay", cap: caps.perDay, spent: day };
      }
      if (caps.total !== undefined && total + amount > caps.total) {
        return { kind: "refused", limit: "total", cap: caps.total, spent: total };
      }
      this.append({ ...entry, state: "reserved", at: now });
      return { kind: "new" };
    });
  }

  /** What was spent (reserved or paid) of `token` on `network`: in the last 24 hours and in total, base units. */
  spent(network: string, token: string, now = Date.now()): { day: bigint; total: bigint } {
    return spentOf(this.entries(), network, token, now);
  }

  /** Records the outcome of a reserved payment: paid (with its transaction) or released (nothing moved). */
  settle(entry: LedgerEntry): Promise<void> {
    return this.exclusive(() => this.append(entry));
  }

  private append(entry: LedgerEntry): void {
    // One write of one line with O_APPEND: a reader never sees half a line, and the lock orders the writers.
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
  }

  private exclusive<T>(work: () => T): Promise<T> {
    const run = this.queue.then(async () => {
      await this.lock();
      try {
        return work();
      } finally {
        unlinkSync(`${this.file}.lock`);
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async lock(): Promise<void> {
    const lock = `${this.file}.lock`;
    for (;;) {
      try {
        closeSync(openSync(lock, "wx"));
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
      } catch {
        // Released meanwhile: try again.
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

function spentOf(all: Map<string, LedgerEntry>, network: string, token: string, now: number) {
  let day = 0n;
  let total = 0n;
  for (const entry of all.values()) {
    if (entry.state === "released" || entry.network !== network) continue;
    if (entry.token.toLowerCase() !== token.toLowerCase()) continue;
    total += BigInt(entry.amount);
    if (entry.at > now - DAY_MS) day += BigInt(entry.amount);
  }
  return { day, total };
}
