// A reconciliation over many funded approves that are broadcast and never mined (issue #33 item 3), on either database
// (funded-approve-sweep-sqlite.test.ts, funded-approve-sweep-postgres.test.ts): the records are driven side by side
// with a bounded wait, so a sweep (which, with several instances, holds the reconciliation lock) ends within the bound
// docs/x402.md states; past their deadline they become `abandoned`, counted against the payer.
import { expect } from "bun:test";
import { type Address, keccak256, parseTransaction } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { FundingStore } from "../../src/onboarding/funding-store";
import { chainOf } from "../support/chain";
import { plainToken, signApprove } from "./funded-approve-support";

export const STUCK = 100;
/** docs/x402.md: ⌈n / 25⌉ × min(receiptTimeoutMs, max(2 s, 3 blocks)) plus the reads; bsc's 450-ms blocks: 4 × 2 s, and 8 s of reads. */
export const SWEEP_BOUND_MS = Math.ceil(STUCK / 25) * 2_000 + 8_000;
const DEADLINE_MS = 30 * 60_000;

/** What the scenario needs of one database and the service (or instance) on it. */
export type SweepSubject = {
  store: FundingStore;
  reconcile(): Promise<void>;
  /** Records by status, sorted by status. */
  statuses(): Promise<{ status: string; n: number }[]>;
  setUpdatedAt(ids: number[], at: string): Promise<void>;
  /** The payers the deny counters counted, lower case, with their count. */
  countedPayers(): Promise<{ address: string; reverts: number }[]>;
};

/** Runs the sweep twice (fresh records, then ten of them past the deadline); answers the ten payers abandoned. */
export async function sweepOverStuckApproves(subject: SweepSubject) {
  const c = chainOf("bsc");
  // Each payer can pay its approve, signed at nonce 1 while its nonce 0 is never used: the node keeps it, unmined.
  const payers = await Promise.all(
    Array.from({ length: STUCK }, async () => {
      const key = generatePrivateKey();
      const address = privateKeyToAccount(key).address;
      await c.test.setBalance({ address, value: 10n ** 16n });
      const raw = await signApprove(key, "bsc", { nonce: 1 });
      const claim = await subject.store.claim(
        {
          network: "bsc",
          payer: address,
          nonce: 1,
          token: plainToken(),
          spender: parseTransaction(raw).to as Address,
          approveRaw: raw,
          approveHash: keccak256(raw),
          fundingWei: "1",
        },
        { wei: 10n ** 18n, since: new Date().toISOString() },
      );
      if (claim.kind !== "created") throw new Error(`not claimed: ${claim.kind}`);
      await subject.store.setStatus(claim.record.id, "approve_sent");
      return { address, id: claim.record.id };
    }),
  );
  const timed = async () => {
    const started = Date.now();
    const done = await Promise.race([
      subject.reconcile().then(() => true),
      Bun.sleep(SWEEP_BOUND_MS).then(() => false),
    ]);
    return { done, ms: Date.now() - started };
  };
  expect(await timed()).toMatchObject({ done: true });
  expect(await subject.statuses()).toEqual([{ status: "approve_sent", n: STUCK }]);

  // Ten of them past the deadline: abandoned, each payer counted once; the others still wait.
  const late = payers.slice(0, 10);
  await subject.setUpdatedAt(
    late.map((payer) => payer.id),
    new Date(Date.now() - DEADLINE_MS - 60_000).toISOString(),
  );
  expect(await timed()).toMatchObject({ done: true });
  expect(await subject.statuses()).toEqual([
    { status: "abandoned", n: 10 },
    { status: "approve_sent", n: STUCK - 10 },
  ]);
  const counted = await subject.countedPayers();
  expect(counted.map((row) => row.address).sort()).toEqual(late.map((payer) => payer.address.toLowerCase()).sort());
  expect(counted.every((row) => Number(row.reverts) === 1)).toBe(true);
  expect((await subject.store.unfinished()).length).toBe(STUCK - 10);
}
