import { afterAll, describe, expect, test } from "bun:test";
import { type Address, type Hex, toFunctionSelector, zeroAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { chainOf, NETWORK_NAMES, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { adminHeaders, eoaDeployment, REVERTING_CODE, randomOwner, randomSalt, type Service, waitFor } from "./support";

const tracked = trackServices();
afterAll(async () => {
  for (const network of NETWORK_NAMES) await chainOf(network).test.setAutomine(true);
  tracked.stopAll();
});

/** Runtime code that reverts every call with `InvalidOwner()`, the account initializer's answer to the zero owner. */
const INVALID_OWNER_CODE: Hex = `0x63${toFunctionSelector("InvalidOwner()").slice(2)}60e01b60005260046000fd`;

/** Transactions sent by the service's executors so far (the sum of their nonces). */
async function executorNonces(service: Service, network: NetworkName): Promise<number> {
  const c = chainOf(network);
  const keys = service.config.networks[network]?.executorKeys ?? [];
  const counts = await Promise.all(
    keys.map((key) => c.public.getTransactionCount({ address: privateKeyToAccount(key as Hex).address })),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/** Transactions waiting in the node's mempool (anvil's txpool_status). */
async function pendingTransactions(network: NetworkName): Promise<number> {
  const request = chainOf(network).public.request as (args: { method: string }) => Promise<{ pending: Hex }>;
  return Number((await request({ method: "txpool_status" })).pending);
}

/** Mines the next transaction the node receives (automine is off while a fault is staged). */
async function mineNextTransaction(network: NetworkName): Promise<void> {
  const c = chainOf(network);
  await waitFor(async () => (await pendingTransactions(network)) > 0);
  await c.test.mine({ blocks: 1 });
}

/**
 * The next deployment transaction is mined while the account implementation reverts: it passed the simulation
 * (the code was fine then) and fails on-chain, as when the state changes between simulation and inclusion.
 */
async function failOnChain(network: NetworkName): Promise<void> {
  const c = chainOf(network);
  const code = (await c.public.getCode({ address: c.info.accountImplementation })) as Hex;
  await waitFor(async () => (await pendingTransactions(network)) > 0);
  await c.test.setCode({ address: c.info.accountImplementation, bytecode: REVERTING_CODE });
  try {
    await c.test.mine({ blocks: 1 });
  } finally {
    await c.test.setCode({ address: c.info.accountImplementation, bytecode: code });
  }
}

const hasCode = async (network: NetworkName, address: Address) =>
  ((await chainOf(network).public.getCode({ address })) ?? "0x").length > 2;

describe("deployments that can never succeed are not retried for ever", () => {
  test("the zero owner is refused at quote, verify and settle of both flows, on both networks", async () => {
    const service = tracked.start();
    for (const network of NETWORK_NAMES) {
      const c = chainOf(network);
      const quote = await service.post("/deploy/quote", {
        network,
        deployment: { ownerAddress: zeroAddress, salts: [randomSalt()], token: c.token.address },
      });
      expect(quote.status).toBe(400);
      expect(quote.body).toMatchObject({ code: "validation_error", details: { field: "deployment.ownerAddress" } });

      const flow = await eoaDeployment(service, { network, salts: [randomSalt()] });
      const deployment = { ...flow.body.paymentRequirements.deployment, ownerAddress: zeroAddress };
      const body = { ...flow.body, paymentRequirements: { ...flow.body.paymentRequirements, deployment } };
      const payerBefore = await tokenBalance(network, c.token.address, flow.payer.address);
      for (const [path, request] of [
        ["/deploy/verify", body],
        ["/deploy/settle", { ...body, wallets: flow.wallets.map((wallet) => ({ ...wallet, owner: zeroAddress })) }],
      ] as const) {
        const response = await service.post(path, request, adminHeaders(service));
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({
          code: "validation_error",
          details: { field: "paymentRequirements.deployment.ownerAddress" },
        });
      }
      expect(await tokenBalance(network, c.token.address, flow.payer.address)).toBe(payerBefore);

      const walletVerify = await service.post(
        "/deploy/wallet/verify",
        {
          paymentRequirements: {
            network,
            deployment: {
              ownerAddress: zeroAddress,
              salts: [randomSalt()],
              token: c.token.address,
              payerAddress: randomOwner(),
            },
          },
        },
        adminHeaders(service),
      );
      expect(walletVerify.status).toBe(400);
      expect(walletVerify.body).toMatchObject({
        code: "validation_error",
        details: { field: "paymentRequirements.deployment.ownerAddress" },
      });
    }
  }, 60_000);

  for (const network of NETWORK_NAMES) {
    test(`${network}: a factory call that reverts with a reason is caught by simulation, never sent and never retried`, async () => {
      const service = tracked.start();
      const c = chainOf(network);
      const unit = 10n ** BigInt(c.token.decimals);
      const funding = [unit, unit];
      const flow = await eoaDeployment(service, { network, salts: [randomSalt(), randomSalt()], funding });
      const verify = await service.post("/deploy/verify", flow.body, adminHeaders(service));
      expect(verify.body.isValid).toBe(true);
      const before = await executorNonces(service, network);

      // Every createAccount now fails as it would for the zero owner: the initializer reverts with InvalidOwner().
      const implementation = (await c.public.getCode({ address: c.info.accountImplementation })) as Hex;
      await c.test.setCode({ address: c.info.accountImplementation, bytecode: INVALID_OWNER_CODE });
      let settle: Awaited<ReturnType<Service["post"]>>;
      try {
        settle = await service.post(
          "/deploy/settle",
          { ...flow.body, wallets: verify.body.wallets },
          adminHeaders(service),
        );
      } finally {
        await c.test.setCode({ address: c.info.accountImplementation, bytecode: implementation });
      }
      expect(settle.status).toBe(500);
      expect(settle.body.code).toBe("deployment_error");
      expect(settle.body.message).toContain("InvalidOwner()");
      expect(settle.body.details).toMatchObject({ paymentSuccess: true, deploymentSuccess: false });
      expect(settle.body.details.failedWallets).toEqual(flow.wallets.map((wallet) => wallet.address));
      // One transaction: the fee. No Multicall3 of factory calls was sent, and no funding followed.
      expect(await executorNonces(service, network)).toBe(before + 1);
      expect(await tokenBalance(network, c.token.address, flow.payer.address)).toBe(1000n * unit - flow.fee);

      // The factory works again, yet the wallets are not retried: the service decided once that they never can be.
      for (const scope of [
        { payerAddress: flow.payer.address },
        { paymentTxHash: settle.body.details.paymentTxHash },
      ]) {
        const claim = await service.post("/wallet/claim", scope);
        expect(claim.status).toBe(404);
        expect(claim.body.code).toBe("not_found");
        expect(claim.body.details.failedWallets).toEqual(
          flow.wallets.map((wallet) => ({
            address: wallet.address,
            reason: "factory call reverts: InvalidOwner()",
          })),
        );
      }
      expect(await executorNonces(service, network)).toBe(before + 1);
      for (const wallet of flow.wallets) expect(await hasCode(network, wallet.address)).toBe(false);
      const listed = await service.get(`/wallet/${flow.owner}?network=${network}`);
      expect(listed.body.sub.map((info: { deploymentCompleted: boolean }) => info.deploymentCompleted)).toEqual([
        false,
        false,
      ]);
    }, 60_000);
  }

  test("a deployment mined without effect is retried after a backoff and abandoned at deployMaxAttempts", async () => {
    const network = "bsc" as const;
    const c = chainOf(network);
    const service = tracked.start({}, (config) => {
      Object.assign(config.networks[network] ?? {}, { deployMaxAttempts: 2, deployRetryBackoffSeconds: 2 });
    });
    const flow = await eoaDeployment(service, { network, salts: [randomSalt()] });
    const wallet = flow.wallets[0]?.address as Address;
    const verify = await service.post("/deploy/verify", flow.body, adminHeaders(service));
    expect(verify.body.isValid).toBe(true);

    await c.test.setAutomine(false);
    let settle: Awaited<ReturnType<Service["post"]>>;
    try {
      const settling = service.post(
        "/deploy/settle",
        { ...flow.body, wallets: verify.body.wallets },
        adminHeaders(service),
      );
      await mineNextTransaction(network); // the fee
      await failOnChain(network); // attempt 1
      settle = await settling;
    } finally {
      await c.test.setAutomine(true);
    }
    expect(settle.status).toBe(500);
    expect(settle.body.code).toBe("deployment_error");
    expect(settle.body.details.wallets[0].deploymentTxHash).toMatch(/^0x[0-9a-f]{64}$/);

    // Within the backoff a claim sends nothing and says when the next attempt is due.
    const nonces = await executorNonces(service, network);
    const early = await service.post("/wallet/claim", { payerAddress: flow.payer.address });
    expect(early.status).toBe(500);
    expect(early.body).toMatchObject({ code: "blockchain_error", details: { status: "pending", success: false } });
    expect(early.body.details.deployments.failed).toEqual([
      { address: wallet, reason: expect.stringContaining("not retried yet") },
    ]);
    expect(await executorNonces(service, network)).toBe(nonces);

    await Bun.sleep(Math.max(0, Date.parse(early.body.details.retryAfter) - Date.now()) + 1_100);
    await c.test.setAutomine(false);
    let second: Awaited<ReturnType<Service["post"]>>;
    try {
      const claiming = service.post("/wallet/claim", { payerAddress: flow.payer.address });
      await failOnChain(network); // attempt 2: the cap
      second = await claiming;
    } finally {
      await c.test.setAutomine(true);
    }
    expect(second.status).toBe(500);
    expect(second.body.code).toBe("deployment_error");
    expect(second.body.details.deployments.failed).toEqual([
      { address: wallet, reason: expect.stringContaining("gave up after 2 failed deployment attempts") },
    ]);
    expect(await executorNonces(service, network)).toBe(nonces + 1);

    // Abandoned: the chain would accept the deployment now, but no claim sends it again.
    for (let i = 0; i < 3; i++) {
      const claim = await service.post("/wallet/claim", { payerAddress: flow.payer.address });
      expect(claim.status).toBe(404);
      expect(claim.body.details.failedWallets).toEqual([
        { address: wallet, reason: expect.stringContaining("gave up after 2 failed deployment attempts") },
      ]);
    }
    expect(await executorNonces(service, network)).toBe(nonces + 1);
    expect(await hasCode(network, wallet)).toBe(false);
  }, 60_000);
});
