import { and, eq, gt, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../db/open";
import { issuedUserOps } from "../db/schema";

/**
 * The issued unshield UserOp that already spends this nullifier, if any: one that may still execute (issued or
 * being sent, before its paymaster data expires; after that the EntryPoint refuses it) or that did. Two sponsored
 * spends of one note would both pass verify, and the paymaster would pay for the second one's revert. A failed one
 * (reverted, rejected) or an expired one leaves the note spendable again.
 */
export function pendingSpendOf(
  db: Db,
  network: string,
  nullifierHash: string,
  now: number,
): { userOpHash: string; expiresAt: number } | undefined {
  return db
    .select({ userOpHash: issuedUserOps.userOpHash, expiresAt: issuedUserOps.expiresAt })
    .from(issuedUserOps)
    .where(
      and(
        eq(issuedUserOps.network, network),
        eq(issuedUserOps.kind, "incognito"),
        sql`json_extract(${issuedUserOps.context}, '$.nullifierHash') = ${nullifierHash.toLowerCase()}`,
        or(
          eq(issuedUserOps.status, "success"),
          and(inArray(issuedUserOps.status, ["issued", "sending"]), gt(issuedUserOps.expiresAt, now)),
        ),
      ),
    )
    .get();
}
