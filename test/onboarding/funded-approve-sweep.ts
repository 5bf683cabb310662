// A reconciliation over many funded approves that are broadcast and never mined (issue #33 item 3): the records are
// driven side by side with a bounded wait, so a sweep (which, with several instances, holds the reconciliation lock)
// ends within the bound docs/x402.md states; past their deadline they become `abandoned`, counted against the payer.
import { afterAll, expect, test } from "bun:test";
import { type Address, keccak256, parseTransaction } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { chainOf } from "../support/chain";
import { DASHBOARD_KEY } from "../support/dashboard";
import { trackServices } from "../support/service";
import { plainToken, signApprove } from "./funded-approve-support";

const services = trackServices();
afterAll(() => services.stopAll());

const STUCK = 100;
/** docs/x402.md: ⌈n / 25⌉ × min(receiptTimeoutMs, max(2 s, 3 blocks)), plus the reads; here 4 × 3 s and 8 s of reads. */
const SWEEP_BOUND_MS = Math.ceil(STUCK / 25) * 3_000 + 8_000;
const DEADLINE_MS = 30 * 60_000;

test(`a sweep over ${STUCK} funded approves that are never mined ends within ${SWEEP_BOUND_MS / 1000} s; past the deadline they are abandoned and counted`, async () => {
  const c = chainOf("bsc");
  const relay = services.start({ dashboardApiKey: DASHBOARD_KEY }, (config) => {
    const bsc = config.networks.bsc;
    if (!bsc) throw new Error("bsc not configured");
    bsc.blockTimeMs = 1_000;
    bsc.receiptTimeoutMs = 10_000;
  });
  const store = relay.services.stores.fundedApprovals;
  // Each payer can pay its approve, signed at nonce 1 while its nonce 0 is never used: the node keeps it, unmined.
  const payers = await Promise.all(
    Array.from({ length: STUCK }, async () => {
      const key = generatePrivateKey();
      const address = privateKeyToAccount(key).address;
      await c.test.setBalance({ address, value: 10n ** 16n });
      const raw = await signApprove(key, "bsc", { nonce: 1 });
      const claim = await store.claim(
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
      await store.setStatus(claim.record.id, "approve_sent");
      return { address, id: claim.record.id };
    }),
  );
  const statuses = () =>
    relay.db.$client
      .query<{ status: string; n: number }, []>("SELECT status, count(*) AS n FROM funded_approvals GROUP BY status")
      .all();

  const timed = async () => {
    const started = Date.now();
    const done = await Promise.race([
      relay.services.reconcile().then(() => true),
      Bun.sleep(SWEEP_BOUND_MS).then(() => false),
    ]);
    return { done, ms: Date.now() - started };
  };
  const first = await timed();
  expect(first).toMatchObject({ done: true });
  expect(statuses()).toEqual([{ status: "approve_sent", n: STUCK }]);

  // Ten of them past the deadline: abandoned, each payer counted once; the others still wait.
  const late = payers.slice(0, 10);
  const past = new Date(Date.now() - DEADLINE_MS - 60_000).toISOString();
  for (const { id } of late)
    relay.db.$client.query("UPDATE funded_approvals SET updated_at = ? WHERE id = ?").run(past, id);
  expect(await timed()).toMatchObject({ done: true });
  expect(statuses()).toEqual([
    { status: "abandoned", n: 10 },
    { status: "approve_sent", n: STUCK - 10 },
  ]);
  const counted = relay.db.$client
    .query<{ address: string; reverts: number }, []>("SELECT address, reverts FROM deny_counters WHERE kind = 'payer'")
    .all();
  expect(counted.map((row) => row.address).sort()).toEqual(late.map((payer) => payer.address.toLowerCase()).sort());
  expect(counted.every((row) => row.reverts === 1)).toBe(true);
  expect((await store.unfinished()).length).toBe(STUCK - 10);
  const summary = await relay.get("/dashboard/api/summary?range=hour&network=bsc", {
    "x-dashboard-api-key": DASHBOARD_KEY,
  });
  expect(summary.body.onboarding).toMatchObject([{ network: "bsc", fundings: STUCK, lost: { count: 10, wei: "10" } }]);
}, 120_000);
