// The deployment store's steps (leases, failed attempts, outcomes, receipt figures, restarts, payments), run on each
// database by the same test files as deployment-store-suite.ts.
import { expect, test } from "bun:test";
import type { DeploymentWallet } from "../../src/db/schema";
import {
  type DeploymentStoreDatabase,
  hex,
  newBatch,
  newWallet,
  storeInstances,
  unique,
} from "./deployment-store-fixtures";

export function deploymentStepsSuite(database: DeploymentStoreDatabase) {
  const { pick, store } = storeInstances(database);

  test("lease: pending|failed -> sending once; sent, success and leased rows are not leased again", async () => {
    const batch = await store.create(newBatch(), [newWallet(), newWallet(), newWallet(), newWallet()]);
    const ids = (await store.walletsOf(batch.id)).map((row) => row.id);
    const [a, b, c, d] = ids as [number, number, number, number];
    const now = Math.floor(Date.now() / 1000);
    expect((await store.lease("deployment", [a, b], now)).sort((x, y) => x - y)).toEqual([a, b].sort((x, y) => x - y));
    expect(await store.lease("deployment", [a, b], now)).toEqual([]);
    await store.markSent("deployment", [a], "0xaa", "0xraw");
    await store.markOutcome("deployment", b, { status: "failed", txHash: "0xbb", error: "factory call failed" });
    await store.lease("deployment", [c], now);
    expect(await store.markOutcome("deployment", c, { status: "success", txHash: "0xcc" })).toBe(true);
    expect((await store.lease("deployment", ids, now)).sort((x, y) => x - y)).toEqual([b, d].sort((x, y) => x - y));
    // The phases are leased apart: the funding of `a` is still pending.
    expect(await store.lease("funding", [a], now)).toEqual([a]);
    expect(await store.lease("funding", [a], now)).toEqual([]);
    expect(await store.lease("deployment", [], now)).toEqual([]);
    // A refused transaction can never be mined: its rows are leased again.
    await store.markRefused("deployment", [a], "refused");
    const row = (await store.walletsOf(batch.id)).find((r) => r.id === a);
    expect(row).toMatchObject({
      deploymentStatus: "failed",
      deploymentTxHash: null,
      deploymentRawTx: null,
      deploymentError: "refused",
    });
    expect(await store.lease("deployment", [a], now)).toEqual([a]);
  });

  test("race: 4 instances lease the same 10 rows 5 times each at once -> disjoint winners covering every row", async () => {
    const batch = await store.create(
      newBatch(),
      Array.from({ length: 10 }, () => newWallet()),
    );
    const ids = (await store.walletsOf(batch.id)).map((row) => row.id);
    const now = Math.floor(Date.now() / 1000);
    for (const phase of ["deployment", "funding"] as const) {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => pick(i).lease(phase, ids, now)));
      const won = results.flat();
      expect(won).toHaveLength(ids.length);
      expect(new Set(won)).toEqual(new Set(ids));
      const rows = await store.walletsOf(batch.id);
      expect(
        rows.every((row) => (phase === "deployment" ? row.deploymentStatus : row.fundingStatus) === "sending"),
      ).toBe(true);
    }
  });

  test("countFailedAttempt: only a failed deployment counts; backoff doubles and leases wait for it; the cap abandons", async () => {
    const batch = await store.create(newBatch(), [newWallet()]);
    const [row] = await store.walletsOf(batch.id);
    const id = (row as { id: number }).id;
    const policy = { maxAttempts: 3, backoffSeconds: 60 };
    const t0 = 1_900_000_000;
    // Not failed: nothing counted.
    expect(await store.countFailedAttempt(id, policy, t0)).toEqual({ abandoned: false, reason: null });
    expect((await store.walletsOf(batch.id))[0]?.deploymentAttempts).toBe(0);

    await store.lease("deployment", [id], t0);
    await store.markOutcome("deployment", id, { status: "failed", txHash: "0x01", error: "factory call failed" });
    expect(await store.countFailedAttempt(id, policy, t0)).toEqual({ abandoned: false, reason: "factory call failed" });
    expect((await store.walletsOf(batch.id))[0]).toMatchObject({
      deploymentStatus: "failed",
      deploymentAttempts: 1,
      deploymentRetryAfter: t0 + 60,
    });
    expect(await store.lease("deployment", [id], t0 + 59)).toEqual([]);
    expect(await store.lease("deployment", [id], t0 + 60)).toEqual([id]);

    await store.markOutcome("deployment", id, { status: "failed", txHash: "0x02", error: "transaction reverted" });
    expect(await store.countFailedAttempt(id, policy, t0 + 100)).toEqual({
      abandoned: false,
      reason: "transaction reverted",
    });
    expect((await store.walletsOf(batch.id))[0]).toMatchObject({
      deploymentAttempts: 2,
      deploymentRetryAfter: t0 + 100 + 120,
    });
    expect(await store.lease("deployment", [id], t0 + 219)).toEqual([]);
    // The funding's lease has no backoff.
    expect(await store.lease("funding", [id], t0)).toEqual([id]);
    expect(await store.lease("deployment", [id], t0 + 220)).toEqual([id]);

    await store.markOutcome("deployment", id, { status: "failed", txHash: "0x03", error: "factory call failed" });
    const reason = "gave up after 3 failed deployment attempts (last: factory call failed)";
    expect(await store.countFailedAttempt(id, policy, t0 + 300)).toEqual({ abandoned: true, reason });
    expect((await store.walletsOf(batch.id))[0]).toMatchObject({
      deploymentStatus: "abandoned",
      deploymentError: reason,
      deploymentAttempts: 3,
      deploymentRetryAfter: null,
    });
    // Abandoned: never leased, never counted again.
    expect(await store.lease("deployment", [id], t0 + 100_000)).toEqual([]);
    expect(await store.countFailedAttempt(id, policy, t0 + 400)).toEqual({ abandoned: false, reason: null });
  });

  test("race: 16 counts of one failed deployment from 4 instances at once -> 16 attempts, none lost", async () => {
    const batch = await store.create(newBatch(), [newWallet()]);
    const id = ((await store.walletsOf(batch.id))[0] as { id: number }).id;
    await store.lease("deployment", [id], 0);
    await store.markOutcome("deployment", id, { status: "failed", txHash: "0x01", error: "factory call failed" });
    const policy = { maxAttempts: 100, backoffSeconds: 1 };
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => pick(i).countFailedAttempt(id, policy, 0)));
    expect(results.every((result) => !result.abandoned)).toBe(true);
    expect((await store.walletsOf(batch.id))[0]?.deploymentAttempts).toBe(16);
  });

  test("race: counts at the cap from 4 instances -> abandoned exactly once", async () => {
    const batch = await store.create(newBatch(), [newWallet()]);
    const id = ((await store.walletsOf(batch.id))[0] as { id: number }).id;
    await store.lease("deployment", [id], 0);
    await store.markOutcome("deployment", id, { status: "failed", txHash: "0x01", error: "factory call failed" });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => pick(i).countFailedAttempt(id, { maxAttempts: 1, backoffSeconds: 1 }, 0)),
    );
    expect(results.filter((result) => result.abandoned)).toHaveLength(1);
    expect((await store.walletsOf(batch.id))[0]).toMatchObject({
      deploymentStatus: "abandoned",
      deploymentAttempts: 1,
    });
  });

  test("markOutcome concludes only a step in flight; 8 instances concluding one sent step at once -> one", async () => {
    const batch = await store.create(newBatch(), [newWallet(), newWallet()]);
    const [a, b] = (await store.walletsOf(batch.id)).map((row) => row.id) as [number, number];
    // Pending (never leased): nothing to conclude.
    expect(await store.markOutcome("deployment", a, { status: "success", txHash: "0x01" })).toBe(false);
    expect((await store.walletsOf(batch.id))[0]).toMatchObject({ deploymentStatus: "pending", deploymentTxHash: null });
    await store.lease("deployment", [a, b], Math.floor(Date.now() / 1000));
    await store.markSent("deployment", [a, b], "0xd1", "0xraw");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        pick(i).markOutcome("deployment", a, { status: "failed", txHash: "0xd1", error: `verdict ${i}` }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect((await store.walletsOf(batch.id))[0]).toMatchObject({
      deploymentStatus: "failed",
      deploymentError: `verdict ${winner}`,
    });
    // A concluded step stays concluded: a late verdict changes nothing.
    expect(await store.markOutcome("deployment", a, { status: "success", txHash: "0xd1" })).toBe(false);
    expect(await store.markOutcome("funding", b, { status: "success", txHash: "0xf1" })).toBe(false);
    expect(await store.markOutcome("deployment", b, { status: "success", txHash: "0xd1" })).toBe(true);
  });

  test("each step records its sent time with markSent and its receipt's figures with the outcome, exactly; a refusal clears them", async () => {
    const batch = await store.create(newBatch(), [newWallet(), newWallet()]);
    const [a, b] = (await store.walletsOf(batch.id)).map((row) => row.id) as [number, number];
    const nowSeconds = Math.floor(Date.now() / 1000);
    const before = new Date().toISOString();
    await store.lease("deployment", [a, b], nowSeconds);
    expect((await store.walletsOf(batch.id))[0]).toMatchObject({ deploymentSentAt: null, deploymentGasUsed: null });
    await store.markSent("deployment", [a, b], "0xd1", "0xraw");
    const [sentA, sentB] = (await pick(1).walletsOf(batch.id)) as [DeploymentWallet, DeploymentWallet];
    expect((sentA.deploymentSentAt ?? "") >= before).toBe(true);
    expect(sentB.deploymentSentAt).toBe(sentA.deploymentSentAt);
    // Beyond 2^64 and a double's 53 bits: exact on either database.
    const mined = {
      gasUsed: "312345",
      effectiveGasPrice: (2n ** 255n + 3n).toString(),
      minedAt: new Date().toISOString(),
    };
    expect(await pick(2).markOutcome("deployment", a, { status: "success", txHash: "0xd1", mined })).toBe(true);
    // An outcome without our receipt (the nonce went elsewhere) leaves the figures unknown.
    expect(await pick(3).markOutcome("deployment", b, { status: "failed", txHash: null, error: "gone" })).toBe(true);
    const [doneA, doneB] = (await store.walletsOf(batch.id)) as [DeploymentWallet, DeploymentWallet];
    expect(doneA).toMatchObject({
      deploymentGasUsed: mined.gasUsed,
      deploymentEffectiveGasPrice: mined.effectiveGasPrice,
      deploymentMinedAt: mined.minedAt,
      deploymentSentAt: sentA.deploymentSentAt,
      fundingSentAt: null,
      fundingGasUsed: null,
    });
    expect(doneB).toMatchObject({
      deploymentGasUsed: null,
      deploymentEffectiveGasPrice: null,
      deploymentMinedAt: null,
    });
    // The funding step has figures of its own; a refused transaction was never sent.
    await store.lease("funding", [a], nowSeconds);
    await store.markSent("funding", [a], "0xf1", "0xraw");
    expect(((await store.walletsOf(batch.id))[0] as DeploymentWallet).fundingSentAt).not.toBeNull();
    await store.markRefused("funding", [a], "nonce too low");
    expect((await store.walletsOf(batch.id))[0]).toMatchObject({ fundingSentAt: null, fundingTxHash: null });
    expect((await store.walletsOf(batch.id))[0]).toMatchObject({ deploymentGasUsed: mined.gasUsed });
  });

  test("unfinished and unleaseAll: only what was left before the given time; leased rows back to pending, sent rows kept", async () => {
    const old = await store.create(newBatch(), [newWallet(), newWallet(), newWallet()]);
    const [a, b, c] = (await store.walletsOf(old.id)).map((row) => row.id) as [number, number, number];
    const now = Math.floor(Date.now() / 1000);
    await store.setPayment(old.id, { status: "sending" });
    await store.lease("deployment", [a, b], now);
    await store.markSent("deployment", [b], "0xbb", "0xraw");
    await store.lease("funding", [c], now);
    await Bun.sleep(5);
    const before = new Date().toISOString();
    await Bun.sleep(5);
    const young = await store.create(newBatch(), [newWallet()]);
    const [y] = (await store.walletsOf(young.id)).map((row) => row.id) as [number];
    await store.lease("deployment", [y], now);

    const left = await pick(1).unfinished(before);
    expect(left.batches.map((batch) => batch.id)).toContain(old.id);
    expect(left.batches.map((batch) => batch.id)).not.toContain(young.id);
    const leftIds = left.wallets.map((row) => row.id);
    expect(leftIds).toEqual(expect.arrayContaining([a, b, c]));
    expect(leftIds).not.toContain(y);

    await pick(2).unleaseAll(before);
    const rows = await store.walletsOf(old.id);
    expect(rows.map((row) => [row.deploymentStatus, row.fundingStatus])).toEqual([
      ["pending", "pending"],
      ["sent", "pending"],
      ["pending", "pending"],
    ]);
    expect((await store.walletsOf(young.id))[0]?.deploymentStatus).toBe("sending");
    // A paid batch with nothing in flight is not unfinished.
    await store.setPayment(old.id, { status: "success", txHash: "0xfee", error: null });
    await Bun.sleep(5);
    const later = await store.unfinished(new Date().toISOString());
    expect(later.batches.map((batch) => batch.id)).not.toContain(old.id);
    expect(later.wallets.map((row) => row.id)).toContain(b);
  });

  test("payment, fundings, result, replacement and discard", async () => {
    const batch = await store.create(newBatch({ flow: "wallet", userOpHash: "0xop", feeAuthorization: null }), [
      newWallet(),
      newWallet(undefined, false),
    ]);
    const [a, b] = (await store.walletsOf(batch.id)).map((row) => row.id) as [number, number];
    await store.setPayment(batch.id, { status: "sending", txHash: "0x01" });
    await store.setPayment(batch.id, { status: "sending" });
    expect(await store.batch(batch.id)).toMatchObject({ paymentStatus: "sending", paymentTxHash: "0x01" });
    await store.paidWithFundings(batch.id, "0xpaid");
    expect(await store.batch(batch.id)).toMatchObject({
      paymentStatus: "success",
      paymentTxHash: "0xpaid",
      paymentError: null,
    });
    // A late request that read the batch unpaid cannot turn a final payment back into one in flight.
    await pick(1).setPayment(batch.id, { status: "sending" });
    expect((await store.batch(batch.id))?.paymentStatus).toBe("success");
    const failed = await store.create(newBatch(), [newWallet()]);
    await store.failPayment(failed.id, { txHash: null, error: "refused", result: {} });
    await pick(2).setPayment(failed.id, { status: "sending", txHash: "0x02" });
    expect(await store.batch(failed.id)).toMatchObject({ paymentStatus: "failed", paymentTxHash: null });
    const rows = await store.walletsOf(batch.id);
    expect(rows.map((row) => [row.fundingStatus, row.fundingTxHash])).toEqual([
      ["success", "0xpaid"],
      ["none", null],
    ]);
    expect((await store.batchesFor({ paymentTxHash: "0xPAID" })).map((row) => row.id)).toEqual([batch.id]);

    const now = Math.floor(Date.now() / 1000);
    await store.lease("deployment", [a, b], now);
    await store.markSent("deployment", [a, b], "0xd1", "0xraw1");
    await store.markReplaced("deployment", [a, b], "0xd2");
    expect((await store.walletsOf(batch.id)).map((row) => [row.deploymentStatus, row.deploymentTxHash])).toEqual([
      ["sent", "0xd2"],
      ["sent", "0xd2"],
    ]);
    await store.markOutcome("deployment", a, { status: "success", txHash: "0xd2" });
    expect((await store.walletsOf(batch.id))[0]).toMatchObject({ deploymentStatus: "success", deploymentError: null });

    await store.saveResult(batch.id, { response: { success: true } });
    expect((await store.batch(batch.id))?.result).toBe(JSON.stringify({ response: { success: true } }));

    const dropped = await store.create(newBatch(), [newWallet()]);
    const droppedWallet = (await store.walletsOf(dropped.id))[0]?.walletAddress as string;
    await pick(3).discard(dropped.id);
    expect(await store.batch(dropped.id)).toBeUndefined();
    expect(await store.walletsOf(dropped.id)).toEqual([]);
    expect(await store.reservation("base", droppedWallet)).toBeUndefined();
  });

  test("batchesFor: newest first, narrowed by payer and network", async () => {
    const payer = `0x${hex(unique(), 20).slice(2)}`;
    const first = await store.create(newBatch({ payer }), [newWallet()]);
    const second = await store.create(newBatch({ payer }), [newWallet()]);
    const third = await store.create(newBatch({ payer, network: "bsc" }), [newWallet()]);
    expect((await store.batchesFor({ payer })).map((b) => b.id)).toEqual([third.id, second.id, first.id]);
    expect((await store.batchesFor({ payer, network: "base" })).map((b) => b.id)).toEqual([second.id, first.id]);
  });
}
