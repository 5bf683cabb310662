import { and, eq } from "drizzle-orm";
import type { Db } from "../db/open";
import { type IssuedUserOp, issuedUserOps } from "../db/schema";

export type NewIssuedUserOp = Pick<
  IssuedUserOp,
  "userOpHash" | "network" | "kind" | "sender" | "owner" | "userOp" | "context" | "expiresAt"
>;

/** What verify issued and what settle made of it; SQLite here, any store with atomic updates would do. */
export type IssuedUserOpStore = {
  /** Records an issue; issuing the very same UserOp again (same hash) keeps the first record. */
  issue(record: NewIssuedUserOp): void;
  find(userOpHash: string): IssuedUserOp | undefined;
  /** Unsettled issues of a sender on a network, newest first (to name what a client changed). */
  issuedFor(network: string, sender: string): IssuedUserOp[];
  /** issued → sending, atomically: true for exactly one caller. */
  claim(userOpHash: string): boolean;
  /** sending → issued: nothing reached the bundler, the UserOp may be settled again. */
  release(userOpHash: string): void;
  finish(userOpHash: string, outcome: { status: "success" | "failed"; txHash?: string | null; result: unknown }): void;
};

export function createIssuedUserOpStore(db: Db): IssuedUserOpStore {
  const now = () => new Date().toISOString();
  const move = (userOpHash: string, from: IssuedUserOp["status"], set: Partial<IssuedUserOp>) =>
    db
      .update(issuedUserOps)
      .set({ ...set, updatedAt: now() })
      .where(and(eq(issuedUserOps.userOpHash, userOpHash), eq(issuedUserOps.status, from)))
      .returning({ userOpHash: issuedUserOps.userOpHash })
      .all().length === 1;
  return {
    issue(record) {
      const time = now();
      db.insert(issuedUserOps)
        .values({
          ...record,
          sender: record.sender.toLowerCase(),
          owner: record.owner.toLowerCase(),
          status: "issued",
          createdAt: time,
          updatedAt: time,
        })
        .onConflictDoNothing()
        .run();
    },
    find: (userOpHash) => db.select().from(issuedUserOps).where(eq(issuedUserOps.userOpHash, userOpHash)).get(),
    issuedFor: (network, sender) =>
      db
        .select()
        .from(issuedUserOps)
        .where(
          and(
            eq(issuedUserOps.network, network),
            eq(issuedUserOps.sender, sender.toLowerCase()),
            eq(issuedUserOps.status, "issued"),
          ),
        )
        .all()
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt)),
    claim: (userOpHash) => move(userOpHash, "issued", { status: "sending" }),
    release: (userOpHash) => {
      move(userOpHash, "sending", { status: "issued" });
    },
    finish(userOpHash, outcome) {
      db.update(issuedUserOps)
        .set({
          status: outcome.status,
          txHash: outcome.txHash ?? null,
          result: JSON.stringify(outcome.result),
          updatedAt: now(),
        })
        .where(eq(issuedUserOps.userOpHash, userOpHash))
        .run();
    },
  };
}
