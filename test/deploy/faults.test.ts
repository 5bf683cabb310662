import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi } from "@relay402/client/wire/abis";
import type { Hex } from "viem";
import { tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { c, feeBroadcast, mine, network, stepBroadcast, unit } from "./faults-support";
import { adminHeaders, eoaDeployment, REVERTING_CODE, randomSalt, type Service, waitFor } from "./support";

const tracked = trackServices();
const start = tracked.start;
afterAll(async () => {
  await c.test.setAutomine(true);
  tracked.stopAll();
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
});
