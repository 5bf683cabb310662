// The deployment flows themselves on PostgreSQL, on the devnet: createDeployments with the PostgreSQL stores (deployment
// batches, the fee's EOA settlement, issued UserOps, deny counters), the real executors, factory and relayer. Several
// "instances" are several deployment services, each with its own connection pool, networks and executor key, as
// separate service processes on one database would be; only the database is shared. The chain judges: balances,
// wallet code and the executors' transaction counts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address, Hex } from "viem";
import { createDeploymentStorePostgres } from "../../src/deploy/deployment-store-postgres";
import { createDeployments } from "../../src/deploy/deployments";
import { ApiError, PaymentPendingError } from "../../src/errors";
import { createPaymentSettler } from "../../src/settlement/settle-payment";
import { createSettlementStorePostgres } from "../../src/settlement/settlement-store-postgres";
import { createIssuedUserOpStorePostgres } from "../../src/userops/issued-user-op-store-postgres";
import { chainOf, tokenBalance } from "../support/chain";
import { createTestDatabase } from "../support/postgres";
import { postgresInstanceBase } from "../support/postgres-instance";
import { deployFundedWallet } from "../support/wallet";
import { entryPointNonce, eoaDeployment, randomOwner, randomSalt } from "./support";

const network = "base" as const;
const c = chainOf(network);
const unit = 10n ** BigInt(c.token.decimals);

let url: string;
const running: { stop(): Promise<void> }[] = [];

/** One service instance's deployment side (createDeployments) on the shared PostgreSQL. */
async function startInstance(keyIndex: number) {
  const base = await postgresInstanceBase(url, keyIndex);
  const { config, db, networks, deny, now, logger, relayerFor, rulesFor } = base;
  const settlements = createSettlementStorePostgres(db);
  const settler = createPaymentSettler({
    store: settlements,
    relayerFor,
    rulesFor,
    now,
    logger,
  });
  const deployments = createDeployments({
    config,
    store: createDeploymentStorePostgres(db),
    networks,
    settler,
    settlements,
    issued: createIssuedUserOpStorePostgres(db),
    relayerFor,
    deny,
    now,
    logger,
  });
  await deployments.reconciled;
  const instance = {
    executor: base.executor,
    deployments,
    /** The routes a client of the EOA flow calls, answered in-process (test/deploy/support.ts's eoaDeployment). */
    async post(path: string, body: unknown) {
      if (path !== "/deploy/quote") throw new Error(`no route ${path} in this test`);
      // The quote body as the route would have validated it; the answer as eoaDeployment reads a JSON body.
      return { status: 200, body: (await deployments.quote(body as never)) as never };
    },
    stop: base.stop,
  };
  running.push(instance);
  return instance;
}

type Instance = Awaited<ReturnType<typeof startInstance>>;

/** Transactions sent by these addresses so far (pending included): the gas all instances spent. */
const sentBy = async (addresses: Address[]) =>
  (
    await Promise.all(addresses.map((address) => c.public.getTransactionCount({ address, blockTag: "pending" })))
  ).reduce((sum, count) => sum + count, 0);

const balance = (holder: Address) => tokenBalance(network, c.token.address, holder);
const hasCode = async (address: Address) => ((await c.public.getCode({ address })) ?? "0x").length > 2;

/** A signed EOA batch of `count` wallets, each funded with `unit`, and the settle body (wallets from verify). */
async function readyBatch(instance: Instance, count: number) {
  const salts = Array.from({ length: count }, () => randomSalt());
  const flow = await eoaDeployment(instance, { network, salts, funding: salts.map(() => unit) });
  const verified = await instance.deployments.verify(flow.body as never);
  expect(verified.isValid).toBe(true);
  return { flow, body: { ...flow.body, wallets: verified.wallets } };
}

type Batch = Awaited<ReturnType<typeof readyBatch>>["flow"];

/** What expectPaidOnce compares the chain with. */
async function chainBefore(flow: Batch, executors: Address[]) {
  return {
    recipient: await balance(c.info.feeRecipient),
    payer: await balance(flow.payer.address),
    sent: await sentBy(executors),
  };
}

/** The chain after a batch: the fee taken once, each wallet deployed and funded once, three transactions in all. */
async function expectPaidOnce(flow: Batch, before: Awaited<ReturnType<typeof chainBefore>>, executors: Address[]) {
  expect(await balance(c.info.feeRecipient)).toBe(before.recipient + flow.fee);
  expect(await balance(flow.payer.address)).toBe(before.payer - flow.total);
  for (const wallet of flow.wallets) {
    expect(await hasCode(wallet.address)).toBe(true);
    expect(await balance(wallet.address)).toBe(unit);
  }
  expect(await sentBy(executors)).toBe(before.sent + 3);
}

beforeAll(async () => {
  url = await createTestDatabase("deploy_pg");
});

afterAll(async () => {
  await Promise.all(running.map((instance) => instance.stop()));
});

describe("wallet deployment on PostgreSQL", () => {
  test("an EOA batch settled: one fee, every wallet deployed and funded, the records on PostgreSQL", async () => {
    const instance = await startInstance(0);
    const { flow, body } = await readyBatch(instance, 2);
    const recipientBefore = await balance(c.info.feeRecipient);
    const payerBefore = await balance(flow.payer.address);
    const settled = await instance.deployments.settle(body as never);
    expect(settled).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, fundingSuccess: true });
    expect(await balance(c.info.feeRecipient)).toBe(recipientBefore + flow.fee);
    expect(await balance(flow.payer.address)).toBe(payerBefore - flow.total);
    for (const wallet of flow.wallets) {
      expect(await hasCode(wallet.address)).toBe(true);
      expect(await balance(wallet.address)).toBe(unit);
    }
    const [batch] = await instance.deployments.store.batchesFor({ payer: flow.payer.address });
    expect(batch).toMatchObject({ paymentStatus: "success", paymentTxHash: settled.paymentTxHash });
    const rows = await instance.deployments.store.walletsOf(batch?.id ?? -1);
    expect(rows.map((row) => [row.reserved, row.deploymentStatus, row.fundingStatus])).toEqual([
      [true, "success", "success"],
      [true, "success", "success"],
    ]);
    // A repeat is the stored answer: nothing sent, nothing moved.
    const sentBefore = await sentBy([instance.executor]);
    expect(await instance.deployments.settle(body as never)).toEqual(settled);
    expect(await sentBy([instance.executor])).toBe(sentBefore);
    expect(await balance(c.info.feeRecipient)).toBe(recipientBefore + flow.fee);
  });

  test("the same batch settled by three instances at once, 3 rounds: one fee, one deployment, one funding each", async () => {
    const instances = await Promise.all([1, 2, 3].map((index) => startInstance(index)));
    const executors = instances.map((instance) => instance.executor);
    for (let round = 0; round < 3; round++) {
      const { flow, body } = await readyBatch(instances[round] as Instance, 3);
      const before = await chainBefore(flow, executors);
      const results = await Promise.allSettled(instances.map((instance) => instance.deployments.settle(body as never)));
      const successes = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
      const failures = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
      expect(successes.length).toBeGreaterThanOrEqual(1);
      // A loser is told the batch is on its way (pending), never a refusal.
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(PaymentPendingError);
        expect((failure as PaymentPendingError).status).toBe(202);
        expect((failure as PaymentPendingError).details).toMatchObject({ status: "pending" });
      }
      // Asked again on every instance: the same full answer.
      for (const instance of instances) {
        const again = await instance.deployments.settle(body as never);
        expect(again).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, fundingSuccess: true });
        expect(again.paymentTxHash).toBe((successes[0] as { paymentTxHash: string | null }).paymentTxHash);
      }
      await expectPaidOnce(flow, before, executors);
    }
  }, 120_000);

  test("a batch settled on one instance while the two others claim it, 2 rounds: one fee, every wallet once", async () => {
    const instances = await Promise.all([1, 2, 3].map((index) => startInstance(index)));
    const [first, ...others] = instances as [Instance, Instance, Instance];
    const executors = instances.map((instance) => instance.executor);
    for (let round = 0; round < 2; round++) {
      const { flow, body } = await readyBatch(first, 3);
      const before = await chainBefore(flow, executors);
      const claimBody = { network, payerAddress: flow.payer.address };
      const results = await Promise.allSettled([
        first.deployments.settle(body as never),
        ...others.flatMap((instance) => [
          instance.deployments.claim(claimBody as never),
          Bun.sleep(50).then(() => instance.deployments.claim(claimBody as never)),
        ]),
      ]);
      // Whoever did not finish the batch is told it is pending or that nothing is left, never a 500.
      for (const result of results) {
        if (result.status === "fulfilled") continue;
        expect(result.reason).toBeInstanceOf(ApiError);
        expect(["blockchain_error", "not_found"]).toContain((result.reason as ApiError).code);
      }
      const settled = await first.deployments.settle(body as never);
      expect(settled).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, fundingSuccess: true });
      for (const instance of others) {
        const again = await instance.deployments.claim(claimBody as never).catch((error: unknown) => error);
        expect(again).toBeInstanceOf(ApiError);
        expect((again as ApiError).code).toBe("not_found");
      }
      await expectPaidOnce(flow, before, executors);
    }
  }, 120_000);

  test("a smart-wallet batch settled by three instances at once: one fee UserOp, one deployment, every wallet funded", async () => {
    const instances = await Promise.all([1, 2, 3].map((index) => startInstance(index)));
    const executors = instances.map((instance) => instance.executor);
    const payer = await deployFundedWallet(network, 100n * unit);
    const amounts = [unit, 2n * unit];
    const paymentRequirements = {
      network,
      deployment: {
        ownerAddress: randomOwner(),
        salts: amounts.map(() => randomSalt()),
        token: c.token.address,
        payerAddress: payer.wallet,
        fundingAmounts: amounts.map(String),
      },
    };
    const verified = await (instances[0] as Instance).deployments.verifyWallet({ paymentRequirements } as never);
    const signature = await payer.owner.signMessage({ message: { raw: verified.userOpHash as Hex } });
    const body = {
      userOp: { ...verified.userOp, signature },
      signature,
      paymentRequirements,
      wallets: verified.wallets,
    };
    const fee = BigInt(verified.deploymentFee);
    const recipientBefore = await balance(c.info.feeRecipient);
    const payerBefore = await balance(payer.wallet);
    const nonceBefore = await entryPointNonce(network, payer.wallet);
    const sentBefore = await sentBy(executors);

    const results = await Promise.allSettled(
      instances.map((instance) => instance.deployments.settleWallet(body as never)),
    );
    for (const result of results) {
      if (result.status === "fulfilled") continue;
      expect(result.reason).toBeInstanceOf(ApiError);
      expect((result.reason as ApiError).code).toBe("blockchain_error");
    }
    for (const instance of instances) {
      const again = await instance.deployments.settleWallet(body as never);
      expect(again).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, fundingSuccess: true });
    }
    expect(await entryPointNonce(network, payer.wallet)).toBe(nonceBefore + 1n);
    expect(await balance(c.info.feeRecipient)).toBe(recipientBefore + fee);
    expect(await balance(payer.wallet)).toBe(payerBefore - fee - unit - 2n * unit);
    for (const [i, wallet] of (verified.wallets as { address: Address }[]).entries()) {
      expect(await hasCode(wallet.address)).toBe(true);
      expect(await balance(wallet.address)).toBe(amounts[i] as bigint);
    }
    // The fee and fundings went in the UserOp: the executors sent the one deployment transaction.
    expect(await sentBy(executors)).toBe(sentBefore + 1);
  }, 120_000);
});
