import { afterAll, describe, expect, test } from "bun:test";
import { reconcileSettlements } from "../../src/payments/reconcile-settlements";
import { randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { settleBody, verifyBody } from "../wallets/support";
import {
  balancesBefore,
  c,
  entryPointNonce,
  expectChargedOnce,
  feeBroadcast,
  mine,
  network,
  stepBroadcast,
  unit,
  userOpSubmitted,
  walletDeployment,
} from "./faults-support";
import {
  adminHeaders,
  batchOf,
  eoaDeployment,
  issuedStatus,
  randomSalt,
  rowsOf,
  type Service,
  waitFor,
} from "./support";

const tracked = trackServices();
const start = tracked.start;
afterAll(async () => {
  await c.test.setAutomine(true);
  tracked.stopAll();
});

describe("deployment faults, injected on the devnet: restarts", () => {
  for (const stage of ["payment", "deployment"] as const) {
    test(`a restart while the ${stage} transaction is in flight loses nothing and a claim completes the batch`, async () => {
      const first = start();
      const funding = [unit, unit];
      const flow = await eoaDeployment(first, { network, salts: [randomSalt(), randomSalt()], funding });
      const verify = await first.post("/deploy/verify", flow.body, adminHeaders(first));
      await c.test.setAutomine(false);
      try {
        const settling = first
          .post("/deploy/settle", { ...flow.body, wallets: verify.body.wallets }, adminHeaders(first))
          .catch(() => undefined);
        await waitFor(feeBroadcast(first, flow.payer.address));
        if (stage === "deployment") {
          await mine();
          await waitFor(stepBroadcast(first, flow.payer.address, "deployment"));
        }
        first.stop(); // the process dies: executor stopped, database closed
        await settling;
        await mine(); // what it broadcast is mined while it is down
      } finally {
        await c.test.setAutomine(true);
      }

      const second = start({ databasePath: first.databasePath });
      await reconcileSettlements(second.services);
      await second.services.deployments.reconciled;
      const listed = await second.get(`/wallet/${flow.owner}`);
      expect(listed.status).toBe(200);
      for (const info of listed.body.sub) {
        expect(info).toMatchObject({
          paymentCompleted: true,
          deploymentCompleted: stage === "deployment",
          fundingCompleted: false,
        });
        expect(info.paymentTxHash).toMatch(/^0x[0-9a-f]{64}$/);
      }
      const claim = await second.post("/wallet/claim", { paymentTxHash: listed.body.sub[0].paymentTxHash });
      expect(claim.status).toBe(200);
      expect(claim.body.success).toBe(true);
      expect(claim.body.deployments.successful).toHaveLength(stage === "deployment" ? 0 : 2);
      expect(claim.body.funding.successful).toHaveLength(2);
      for (const wallet of flow.wallets) {
        expect(((await c.public.getCode({ address: wallet.address })) ?? "0x").length).toBeGreaterThan(2);
        expect(await tokenBalance(network, c.token.address, wallet.address)).toBe(unit);
      }
      // The fee was taken once: payer paid fee + fundings, nothing more.
      const resettle = await second.post(
        "/deploy/settle",
        { ...flow.body, wallets: verify.body.wallets },
        adminHeaders(second),
      );
      expect(resettle.status).toBe(200);
      expect(resettle.body).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, fundingSuccess: true });
      expect(await tokenBalance(network, c.token.address, flow.payer.address)).toBe(1000n * unit - flow.total);
    }, 60_000);
  }

  for (const minedBeforeRestart of [true, false]) {
    test(`a restart while the fee UserOp is at the bundler, mined ${minedBeforeRestart ? "before" : "after"} the new process reconciles: a claim completes the batch, the fee is taken once`, async () => {
      const first = start();
      const funding = [unit, 2n * unit];
      const flow = await walletDeployment(first, funding);
      const before = await balancesBefore(flow);
      let second: Service;
      await c.test.setAutomine(false);
      try {
        const settling = first.post("/deploy/wallet/settle", flow.body, adminHeaders(first)).catch(() => undefined);
        await waitFor(userOpSubmitted(flow.hash));
        expect(batchOf(first, flow.payer)?.paymentStatus).toBe("sending");
        first.stop(); // the process dies while the bundle transaction waits in the node's mempool
        if (minedBeforeRestart) await mine();
        // A short receipt wait: start-up reconciliation gives up on a UserOp that is still unmined.
        second = start({ databasePath: first.databasePath }, (config) => {
          config.networks[network]!.receiptTimeoutMs = 1_500;
        });
        await second.services.deployments.reconciled;
        if (!minedBeforeRestart) {
          // The bundler still holds the UserOp: its outcome is unknown, so nothing is given up or released.
          expect(batchOf(second, flow.payer)).toMatchObject({ paymentStatus: "sending", result: null });
          expect(await issuedStatus(second, flow.hash)).toBe("sending");
          expect(rowsOf(second, flow.payer).every((row) => row.reserved)).toBe(true);
          await mine();
        }
        await settling;
      } finally {
        await c.test.setAutomine(true);
      }

      if (minedBeforeRestart) {
        // Reconciled from the UserOp receipt: the fee and the fundings (same UserOp) are paid, nothing deployed yet.
        expect(batchOf(second, flow.payer)).toMatchObject({ paymentStatus: "success" });
        expect(await issuedStatus(second, flow.hash)).toBe("success");
        const listed = await second.get(`/wallet/${flow.owner}`);
        expect(listed.status).toBe(200);
        for (const info of listed.body.sub) {
          expect(info).toMatchObject({ paymentCompleted: true, deploymentCompleted: false, fundingCompleted: true });
          expect(info.paymentTxHash).toMatch(/^0x[0-9a-f]{64}$/);
        }
      }
      const claim = await second.post("/wallet/claim", { payerAddress: flow.payer, network });
      expect(claim.status).toBe(200);
      expect(claim.body).toMatchObject({ success: true, network, funding: { successful: [], failed: [] } });
      expect(new Set(claim.body.deployments.successful.map((d: { address: string }) => d.address))).toEqual(
        new Set(flow.wallets.map((w) => w.address)),
      );
      expect(batchOf(second, flow.payer)).toMatchObject({ paymentStatus: "success" });
      expect(await issuedStatus(second, flow.hash)).toBe("success");
      await expectChargedOnce(flow, funding, before);
      expect((await second.post("/wallet/claim", { payerAddress: flow.payer })).status).toBe(404);

      // The same batch settled again answers its outcome and sends nothing.
      const paymentTxHash = batchOf(second, flow.payer)?.paymentTxHash;
      const resettle = await second.post("/deploy/wallet/settle", flow.body, adminHeaders(second));
      expect(resettle.status).toBe(200);
      expect(resettle.body).toMatchObject({
        paymentSuccess: true,
        deploymentSuccess: true,
        fundingSuccess: true,
        failedWallets: [],
        failedFundings: [],
        paymentTxHash,
      });
      expect((await second.post("/deploy/wallet/settle", flow.body, adminHeaders(second))).body).toEqual(resettle.body);
      await expectChargedOnce(flow, funding, before);
    }, 60_000);
  }

  test("a fee UserOp whose paying wallet's nonce went to another UserOp before it was sent: the batch fails and frees its wallets, nothing charged", async () => {
    const first = start();
    const flow = await walletDeployment(first, [unit]);
    const before = await balancesBefore(flow);
    first.stop();

    // The batch is recorded as sending, and nothing reached the bundler (as in the test below).
    const closed = Bun.serve({ port: 0, fetch: () => new Response() });
    const deadBundler = closed.url.href;
    closed.stop(true);
    const cut = start({ databasePath: first.databasePath }, (config) => {
      config.networks[network]!.bundlerUrl = deadBundler;
    });
    expect((await cut.post("/deploy/wallet/settle", flow.body, adminHeaders(cut))).status).toBe(500);
    expect(batchOf(cut, flow.payer)).toMatchObject({ paymentStatus: "sending" });
    cut.stop();

    // Meanwhile the paying wallet's owner spends the same EntryPoint nonce on a payment of its own.
    const elsewhere = start();
    const verified = await elsewhere.post(
      "/wallet/verify",
      verifyBody(network, flow.payer, [{ to: randomAddress(), amount: unit }]),
    );
    expect(verified.status).toBe(200);
    const paid = await elsewhere.post("/wallet/settle", await settleBody(verified.body, flow.payerOwner));
    expect(paid.status).toBe(200);
    expect(await entryPointNonce(flow.payer)).toBe(before.nonce + 1n);

    const second = start({ databasePath: first.databasePath });
    await second.services.deployments.reconciled;
    expect(batchOf(second, flow.payer)).toMatchObject({ paymentStatus: "failed" });
    expect(rowsOf(second, flow.payer).every((row) => !row.reserved)).toBe(true);
    const again = await second.post("/deploy/wallet/settle", flow.body, adminHeaders(second));
    expect(again.status).toBe(400);
    expect(again.body.code).toBe("userop_error");
    expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(
      before.recipient + BigInt(verified.body.feeAmount),
    );
    for (const wallet of flow.wallets) expect(await c.public.getCode({ address: wallet.address })).toBeUndefined();
  }, 60_000);

  test("a restart after the fee UserOp was recorded as sending but never reached the bundler: it is sent once, settle finishes the batch", async () => {
    const first = start();
    const funding = [unit, 2n * unit];
    const flow = await walletDeployment(first, funding);
    const before = await balancesBefore(flow);
    first.stop();

    // The settling process cannot reach its bundler: the batch and the issued UserOp are recorded as sending
    // and nothing left the service, the state of a process that died right before the send.
    const closed = Bun.serve({ port: 0, fetch: () => new Response() });
    const deadBundler = closed.url.href;
    closed.stop(true);
    const cut = start({ databasePath: first.databasePath }, (config) => {
      config.networks[network]!.bundlerUrl = deadBundler;
    });
    const settle = await cut.post("/deploy/wallet/settle", flow.body, adminHeaders(cut));
    // An unreachable bundler is an error (5xx), not a payment in flight; the payment's id is its UserOp's hash.
    expect(settle.status).toBe(500);
    expect(settle.body).toMatchObject({
      code: "blockchain_error",
      details: { userOpHash: flow.hash, paymentId: flow.hash },
    });
    expect(settle.body.details.status).toBeUndefined();
    expect(batchOf(cut, flow.payer)).toMatchObject({ paymentStatus: "sending", paymentTxHash: null, result: null });
    expect(await issuedStatus(cut, flow.hash)).toBe("sending");
    expect(await entryPointNonce(flow.payer)).toBe(before.nonce);
    cut.stop();

    // After the restart the UserOp is sent (once) and its receipt recorded; the wallets stay reserved.
    const second = start({ databasePath: first.databasePath });
    await second.services.deployments.reconciled;
    expect(batchOf(second, flow.payer)).toMatchObject({ paymentStatus: "success" });
    expect(await issuedStatus(second, flow.hash)).toBe("success");
    expect(await entryPointNonce(flow.payer)).toBe(before.nonce + 1n);
    expect(rowsOf(second, flow.payer).every((row) => row.reserved && row.fundingStatus === "success")).toBe(true);

    const resettle = await second.post("/deploy/wallet/settle", flow.body, adminHeaders(second));
    expect(resettle.status).toBe(200);
    expect(resettle.body).toMatchObject({
      paymentSuccess: true,
      deploymentSuccess: true,
      fundingSuccess: true,
      failedWallets: [],
      failedFundings: [],
      paymentTxHash: batchOf(second, flow.payer)?.paymentTxHash,
    });
    await expectChargedOnce(flow, funding, before);
    expect((await second.post("/wallet/claim", { payerAddress: flow.payer })).status).toBe(404);
    expect((await second.post("/deploy/wallet/settle", flow.body, adminHeaders(second))).body).toEqual(resettle.body);
    await expectChargedOnce(flow, funding, before);
  }, 60_000);
});
