import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi } from "@relay402/client/wire/abis";
import type { Address, Hex } from "viem";
import { createDeploymentStore } from "../../src/deploy/deployment-store-sqlite";
import { reconcileSettlements } from "../../src/payments/reconcile-settlements";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { settleBody, verifyBody } from "../wallets/support";
import {
  adminHeaders,
  entryPointNonce as entryPointNonceOn,
  eoaDeployment,
  inMempool as inMempoolOn,
  issuedStatus,
  REVERTING_CODE,
  randomSalt,
  type Service,
  userOpSubmitted as userOpSubmittedOn,
  waitFor,
  walletDeployment as walletDeploymentOn,
} from "./support";

const network = "base" as const;
const c = chainOf(network);
const unit = 10n ** BigInt(c.token.decimals);
const tracked = trackServices();
const start = tracked.start;
afterAll(async () => {
  await c.test.setAutomine(true);
  tracked.stopAll();
});

/** The service's deployment records, read synchronously from its SQLite file (the service's store is async). */
const recordsOf = (service: Service) => createDeploymentStore(service.db);
const batchOf = (service: Service, payer: Address) => recordsOf(service).batchesFor({ payer })[0];
const rowsOf = (service: Service, payer: Address) => {
  const batch = batchOf(service, payer);
  return batch ? recordsOf(service).walletsOf(batch.id) : [];
};
const settlementOf = (service: Service, payer: Address) =>
  service.db.$client
    .query<{ status: string; tx_hash: Hex }, [string]>("SELECT status, tx_hash FROM eoa_settlements WHERE payer = ?")
    .get(payer.toLowerCase());

const inMempool = (hash: Hex | null | undefined) => inMempoolOn(network, hash);
const feeBroadcast = (service: Service, payer: Address) => async () => {
  const record = settlementOf(service, payer);
  return record?.status === "sent" && (await inMempool(record.tx_hash));
};
const stepBroadcast = (service: Service, payer: Address, phase: "deployment" | "funding") => async () => {
  const rows = rowsOf(service, payer).filter((row) => (phase === "deployment" ? true : row.fundingStatus === "sent"));
  const hashes = rows.map((row) =>
    phase === "deployment" ? (row.deploymentStatus === "sent" ? row.deploymentTxHash : null) : row.fundingTxHash,
  );
  return hashes.length > 0 && (await Promise.all(hashes.map((hash) => inMempool(hash as Hex | null)))).every(Boolean);
};

/** Mines the transactions waiting in the mempool (automine is off while a fault is staged). */
const mine = () => c.test.mine({ blocks: 1 });

const walletDeployment = (service: Service, fundingAmounts: bigint[]) =>
  walletDeploymentOn(service, network, fundingAmounts);
const entryPointNonce = (wallet: Address) => entryPointNonceOn(network, wallet);
const userOpSubmitted = (hash: Hex) => userOpSubmittedOn(network, hash);

type WalletFlow = Awaited<ReturnType<typeof walletDeployment>>;

/** The batch is complete and the paying wallet was charged once: the fee and each funding, by one UserOp. */
async function expectChargedOnce(
  flow: WalletFlow,
  funding: bigint[],
  before: { recipient: bigint; nonce: bigint },
): Promise<void> {
  expect(await entryPointNonce(flow.payer)).toBe(before.nonce + 1n);
  expect(await tokenBalance(network, c.token.address, flow.payer)).toBe(100n * unit - flow.total);
  expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(before.recipient + flow.fee);
  for (const [i, wallet] of flow.wallets.entries()) {
    expect(((await c.public.getCode({ address: wallet.address })) ?? "0x").length).toBeGreaterThan(2);
    expect(await tokenBalance(network, c.token.address, wallet.address)).toBe(funding[i]!);
  }
}

/** Before a settle: what the fee recipient holds and the paying wallet's EntryPoint nonce. */
const balancesBefore = async (flow: WalletFlow) => ({
  recipient: await tokenBalance(network, c.token.address, c.info.feeRecipient),
  nonce: await entryPointNonce(flow.payer),
});

describe("deployment faults, injected on the devnet", () => {
  test("the factory reverts for a moment: fee paid, nothing sent or deployed, claims complete deployments and fundings once", async () => {
    const service = start();
    const factoryCode = (await c.public.getCode({ address: c.info.factory })) as Hex;
    const funding = [unit, 2n * unit, 3n * unit];
    const flow = await eoaDeployment(service, { network, salts: [randomSalt(), randomSalt(), randomSalt()], funding });
    const verify = await service.post("/deploy/verify", flow.body, adminHeaders(service));
    expect(verify.body.isValid).toBe(true);
    const recipientBefore = await tokenBalance(network, c.token.address, c.info.feeRecipient);

    await c.test.setAutomine(false);
    let settle: Awaited<ReturnType<Service["post"]>>;
    try {
      const settling = service.post(
        "/deploy/settle",
        { ...flow.body, wallets: verify.body.wallets },
        adminHeaders(service),
      );
      await waitFor(feeBroadcast(service, flow.payer.address));
      await c.test.setCode({ address: c.info.factory, bytecode: REVERTING_CODE });
      await mine(); // the fee payment
      // The factory calls are simulated against the reverting code: they revert without a reason, so nothing is
      // sent and the wallets stay retryable.
      settle = await settling;
    } finally {
      await c.test.setCode({ address: c.info.factory, bytecode: factoryCode });
      await c.test.setAutomine(true);
    }
    expect(settle.status).toBe(500);
    expect(settle.body.code).toBe("deployment_error");
    const partial = settle.body.details;
    expect(partial).toMatchObject({ paymentSuccess: true, deploymentSuccess: false, fundingSuccess: false });
    expect(partial.failedWallets).toEqual(flow.wallets.map((w) => w.address));
    expect(partial.failedFundings).toEqual(flow.wallets.map((w) => w.address));
    expect(partial.wallets.map((w: { deploymentTxHash: string | null }) => w.deploymentTxHash)).toEqual([
      null,
      null,
      null,
    ]);
    expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(recipientBefore + flow.fee);

    // The wallets stay reserved by the paid batch: a second fee for them is refused.
    const second = await eoaDeployment(service, {
      network,
      salts: [flow.body.paymentRequirements.deployment.salts[0]!],
      owner: flow.owner,
    });
    const refused = await service.post("/deploy/verify", second.body, adminHeaders(service));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("already paid for");

    const listed = await service.get(`/wallet/${flow.owner}`);
    expect(
      listed.body.sub.map((info: { paymentCompleted: boolean; deploymentCompleted: boolean }) => [
        info.paymentCompleted,
        info.deploymentCompleted,
      ]),
    ).toEqual([
      [true, false],
      [true, false],
      [true, false],
    ]);

    // Concurrent claims, two with the same scope and one by payer: each wallet is deployed and funded once.
    const claims = await Promise.all([
      service.post("/wallet/claim", { paymentTxHash: partial.paymentTxHash }),
      service.post("/wallet/claim", { paymentTxHash: partial.paymentTxHash }),
      service.post("/api/v1/wallet/claim", {
        payerAddress: flow.payer.address,
        paymentTxHash: partial.paymentTxHash,
        network,
      }),
    ]);
    const successful = claims.filter((claim) => claim.status === 200);
    expect(successful.length).toBeGreaterThan(0);
    for (const claim of claims) expect([200, 404]).toContain(claim.status);
    const deployed = successful.flatMap((claim) =>
      claim.body.deployments.successful.map((d: { address: string }) => d.address),
    );
    const funded = successful.flatMap((claim) =>
      claim.body.funding.successful.map((f: { address: string }) => f.address),
    );
    expect(new Set(deployed)).toEqual(new Set(flow.wallets.map((w) => w.address)));
    expect(new Set(funded)).toEqual(new Set(flow.wallets.map((w) => w.address)));
    expect(successful[0]!.body).toMatchObject({ success: true, network });
    for (const [i, wallet] of flow.wallets.entries()) {
      expect(await tokenBalance(network, c.token.address, wallet.address)).toBe(funding[i]!);
    }
    expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(recipientBefore + flow.fee);
    expect((await service.post("/wallet/claim", { paymentTxHash: partial.paymentTxHash })).status).toBe(404);

    // The same batch settled again answers its first result and sends nothing.
    const again = await service.post(
      "/deploy/settle",
      { ...flow.body, wallets: verify.body.wallets },
      adminHeaders(service),
    );
    expect(again.status).toBe(500);
    expect(again.body).toEqual(settle.body);
    const after = await service.get(`/wallet/${flow.owner}?network=${network}`);
    expect(
      after.body.sub.every(
        (info: { deploymentCompleted: boolean; fundingCompleted: boolean }) =>
          info.deploymentCompleted && info.fundingCompleted,
      ),
    ).toBe(true);
  }, 60_000);

  test("funds leave the payer mid-settle: partial result with failedFundings, a claim after a top-up completes it", async () => {
    const service = start();
    const funding = [unit, unit, unit];
    const flow = await eoaDeployment(service, { network, salts: [randomSalt(), randomSalt(), randomSalt()], funding });
    const verify = await service.post("/deploy/verify", flow.body, adminHeaders(service));
    const payerWallet = c.walletFor(flow.payer.key);
    await c.test.setAutomine(false);
    let settle: Awaited<ReturnType<Service["post"]>>;
    try {
      const settling = service.post(
        "/deploy/settle",
        { ...flow.body, wallets: verify.body.wallets },
        adminHeaders(service),
      );
      await waitFor(feeBroadcast(service, flow.payer.address));
      await mine();
      await waitFor(stepBroadcast(service, flow.payer.address, "deployment"));
      // The payer keeps exactly one funding's worth.
      const balance = await tokenBalance(network, c.token.address, flow.payer.address);
      await payerWallet.writeContract({
        address: c.token.address,
        abi: erc20Abi,
        functionName: "transfer",
        args: [c.info.feeRecipient, balance - unit],
      });
      await mine();
      await waitFor(stepBroadcast(service, flow.payer.address, "funding"));
      await mine();
      settle = await settling;
    } finally {
      await c.test.setAutomine(true);
    }
    expect(settle.status).toBe(200);
    expect(settle.body).toMatchObject({
      paymentSuccess: true,
      deploymentSuccess: true,
      fundingSuccess: false,
      failedWallets: [],
    });
    expect(settle.body.failedFundings).toHaveLength(2);
    expect(settle.body.wallets.filter((w: { fundingCompleted: boolean }) => w.fundingCompleted)).toHaveLength(1);

    const stillPoor = await service.post("/wallet/claim", { payerAddress: flow.payer.address });
    expect(stillPoor.status).toBe(500);
    expect(stillPoor.body.code).toBe("deployment_error");
    expect(stillPoor.body.details.funding.failed[0].reason).toContain("balance too low");

    await c.public.waitForTransactionReceipt({
      hash: await payerWallet.writeContract({
        address: c.token.address,
        abi: erc20Abi,
        functionName: "mint",
        args: [flow.payer.address, 2n * unit],
      }),
    });
    const claim = await service.post("/wallet/claim", { payerAddress: flow.payer.address });
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({ success: true, deployments: { successful: [], failed: [] }, network });
    expect(new Set(claim.body.funding.successful.map((f: { address: string }) => f.address))).toEqual(
      new Set(settle.body.failedFundings),
    );
    for (const wallet of flow.wallets) expect(await tokenBalance(network, c.token.address, wallet.address)).toBe(unit);
  }, 60_000);

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
    expect(settle.status).toBe(500);
    expect(settle.body).toMatchObject({
      code: "blockchain_error",
      details: { status: "pending", userOpHash: flow.hash },
    });
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
