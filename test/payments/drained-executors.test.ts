import { afterAll, expect, test } from "bun:test";
import { parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";

// Executor keys of this file's own service, so that draining them disturbs no other test file.
const executorKeys = Array.from({ length: 4 }, () => generatePrivateKey());
const executors = executorKeys.map((key) => privateKeyToAccount(key).address);
const services = trackServices();
const service = services.start({}, (config) => {
  if (config.networks.bsc) config.networks.bsc.executorKeys = executorKeys;
});
afterAll(() => services.stopAll());

const c = chainOf("bsc");
const value = 2n * 10n ** BigInt(c.token.decimals);

async function readyPayers(count: number) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const payer = await freshPayer("bsc");
      await approveRelayer("bsc", payer.key, 100n * value);
      return payer;
    }),
  );
}

const setExecutorBalances = (wei: bigint) =>
  Promise.all(executors.map((address) => c.test.setBalance({ address, value: wei })));

const unfinishedSettlements = () => service.store.unfinished().filter((record) => record.network === "bsc");

test("settles refused while every executor is drained leave nothing half-sent, and settles go through again once refilled, without a restart", async () => {
  const merchant = randomAddress();
  const [drainedPayers, laterPayers] = await Promise.all([readyPayers(24), readyPayers(16)]);
  const bodies = await Promise.all(
    drainedPayers.map((payer) => signedPayment({ network: "bsc", key: payer.key, to: merchant, value })),
  );
  const balancesBefore = await Promise.all(
    drainedPayers.map((payer) => tokenBalance("bsc", c.token.address, payer.address)),
  );

  await setExecutorBalances(0n);
  const refused = await Promise.all(bodies.map((body) => service.post("/settle", body)));
  for (const response of refused) {
    expect(response.status).toBe(500);
    expect(response.body.code).toBe("blockchain_error");
  }
  expect(unfinishedSettlements()).toEqual([]);
  const balancesAfter = await Promise.all(
    drainedPayers.map((payer) => tokenBalance("bsc", c.token.address, payer.address)),
  );
  expect(balancesAfter).toEqual(balancesBefore);
  expect(await tokenBalance("bsc", c.token.address, merchant)).toBe(0n);

  await setExecutorBalances(parseEther("10"));
  // One-second blocks, so "within a few blocks" means something (automine gives every transaction a block).
  await c.test.setAutomine(false);
  await c.test.setIntervalMining({ interval: 1 });
  try {
    const started = Date.now();
    const firstBlock = await c.public.getBlockNumber();
    const fresh = await Promise.all(
      laterPayers.map(async (payer) =>
        service.post("/settle", await signedPayment({ network: "bsc", key: payer.key, to: merchant, value })),
      ),
    );
    expect(fresh.map((response) => response.status)).toEqual(Array(16).fill(200));
    const blocks = fresh.map((response) => BigInt(response.body.blockNumber));
    for (const block of blocks) expect(block - firstBlock).toBeLessThanOrEqual(4n);
    expect(Date.now() - started).toBeLessThan(service.config.networks.bsc?.receiptTimeoutMs ?? 0);

    // A refused authorization is not stuck either: settling it again now succeeds.
    const retried = await Promise.all(bodies.slice(0, 4).map((body) => service.post("/settle", body)));
    expect(retried.map((response) => response.status)).toEqual(Array(4).fill(200));
  } finally {
    await c.test.setIntervalMining({ interval: 0 });
    await c.test.setAutomine(true);
  }

  expect(await tokenBalance("bsc", c.token.address, merchant)).toBe(20n * value);
  expect(unfinishedSettlements()).toEqual([]);
  // No executor nonce is left waiting behind a gap.
  for (const address of executors) {
    const [mined, pending] = await Promise.all([
      c.public.getTransactionCount({ address, blockTag: "latest" }),
      c.public.getTransactionCount({ address, blockTag: "pending" }),
    ]);
    expect(pending).toBe(mined);
  }
}, 60_000);
