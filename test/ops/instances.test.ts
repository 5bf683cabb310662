// Several instances on one PostgreSQL: three service processes (`bun src/main.ts`, as production runs them) on one
// database and one devnet, each leasing one of the devnet's three executor keys. The chain's balances judge.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { relayerAbi } from "@relay402/client/wire/abis";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devnetKeys } from "../../scripts/devnet/keys";
import { eoaDeployment, randomSalt } from "../deploy/support";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { createTestDatabase } from "../support/postgres";
import { type ServiceProcess, startServiceProcess } from "./service-process";

type Network = (typeof NETWORK_NAMES)[number];
/** The network of the tests that do not loop over both. */
const network = "bsc" as const;
const c = chainOf(network);
const unitOf = (chain: Network) => 10n ** BigInt(chainOf(chain).token.decimals);
const unit = unitOf(network);
const dir = mkdtempSync(join(tmpdir(), "relay402-instances-"));
/** Short leases for the test that kills an instance: its key is free again within seconds. */
const SHORT_LEASE_MS = 3_000;
let databaseUrl = "";
const started: ServiceProcess[] = [];

beforeAll(async () => {
  databaseUrl = await createTestDatabase("instances");
});
afterEach(async () => {
  await c.test.setAutomine(true);
});
afterAll(async () => {
  for (const service of started.splice(0)) await service.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function startInstances(count: number, keyLeaseMs = 15_000, keyLeasesPerInstance = 1): Promise<ServiceProcess[]> {
  // One after the other: each takes the key lease the previous ones left free.
  const instances: ServiceProcess[] = [];
  for (let i = 0; i < count; i++) {
    const instance = await startServiceProcess(dir, {
      databaseUrl,
      keyLeaseMs,
      keyLeasesPerInstance,
      logRequests: false,
      rateLimitPerMinute: 1_000_000,
    });
    started.push(instance);
    instances.push(instance);
  }
  return instances;
}

async function stopInstances(instances: ServiceProcess[]) {
  for (const instance of instances) {
    instance.child.kill("SIGTERM");
    await instance.exited;
  }
}

const post = async (instance: ServiceProcess, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${instance.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any, headers: response.headers };
};

/** Every transaction the devnet's executors ever sent on `chain` (their nonces, pending ones included). */
const sentByExecutors = async (chain: Network) =>
  (
    await Promise.all(
      devnetKeys.executors.map((key) =>
        chainOf(chain).public.getTransactionCount({
          address: privateKeyToAccount(key as Hex).address,
          blockTag: "pending",
        }),
      ),
    )
  ).reduce((sum, count) => sum + count, 0);

type Payment = { body: Awaited<ReturnType<typeof signedPayment>>; to: Address; value: bigint };

async function fundedPayer(total: bigint, chain: Network = network) {
  const payer = await freshPayer(chain, { tokens: total });
  await approveRelayer(chain, payer.key, total);
  return payer;
}

async function payments(payer: { key: Hex }, values: bigint[], chain: Network = network): Promise<Payment[]> {
  return Promise.all(
    values.map(async (value) => {
      const to = randomAddress();
      return { body: await signedPayment({ network: chain, key: payer.key, to, value }), to, value };
    }),
  );
}

const authorizationUsed = (payer: Address, payment: Payment) =>
  c.public.readContract({
    address: c.info.relayer,
    abi: relayerAbi,
    functionName: "authorizationState",
    args: [payer, payment.body.paymentPayload.payload.authorization.nonce as Hex],
  });

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await Bun.sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function poolPending(): Promise<number> {
  const status = (await c.public.request({ method: "txpool_status" as never })) as { pending: Hex | number };
  return Number(status.pending);
}

const allUsed = async (payer: Address, list: Payment[]) =>
  (await Promise.all(list.map((payment) => authorizationUsed(payer, payment)))).every(Boolean);

/**
 * Sends each payment to `instance` on a chain that does not mine, SIGKILLs it once all their transactions are in the
 * mempool, then empties the mempool and mines again: the node forgets them too, so only the records' signed
 * transactions can finish these payments now.
 */
async function killWithSettlesInFlight(instance: ServiceProcess, list: Payment[]) {
  await c.test.setAutomine(false);
  const answers = list.map((payment) => post(instance, "/settle", payment.body).catch(() => null));
  await until(async () => (await poolPending()) === list.length, "the settles' transactions in the mempool");
  instance.child.kill("SIGKILL");
  await instance.exited;
  await Promise.all(answers);
  await c.public.request({ method: "anvil_dropAllTransactions" as never });
  await c.test.setAutomine(true);
}

describe("three instances on one PostgreSQL", () => {
  test("each instance leases a key of its own, and /health says so", async () => {
    const instances = await startInstances(3);
    try {
      const held = await Promise.all(
        instances.map(async (instance) => {
          const health = (await (
            await fetch(`${instance.url}/health`, { headers: { "x-admin-api-key": instance.adminApiKey } })
          ).json()) as any;
          expect(health.status).toBe("ok");
          return health.networks[network].keyLeases.held as number;
        }),
      );
      expect(held).toEqual([1, 1, 1]);
    } finally {
      await stopInstances(instances);
    }
  }, 60_000);

  for (const chain of NETWORK_NAMES) {
    test(`${chain}: one authorization sent to all three at once: one transaction, the payee paid once`, async () => {
      const c = chainOf(chain);
      const unit = unitOf(chain);
      const instances = await startInstances(3);
      try {
        const payer = await fundedPayer(10n * unit, chain);
        const [payment] = (await payments(payer, [3n * unit], chain)) as [Payment];
        const authorization = payment.body.paymentPayload.payload.authorization;
        const paymentId = paymentIdOf({
          chainId: c.info.chainId,
          contract: c.info.relayer,
          payer: payer.address,
          nonce: authorization.nonce as Hex,
        });
        const sentBefore = await sentByExecutors(chain);
        const answers = await Promise.all(instances.map((instance) => post(instance, "/settle", payment.body)));
        const settled = answers.filter((answer) => answer.status === 200);
        expect(settled.length).toBeGreaterThanOrEqual(1);
        // Any other answer is 202 "being settled; retry shortly" under the same id: never a 5xx, never a second
        // transaction.
        for (const answer of answers.filter((a) => a.status !== 200)) {
          expect(answer.status).toBe(202);
          expect(answer.body).toMatchObject({ success: false, status: "pending", paymentId, payer: payer.address });
          expect(answer.headers.get("location")).toBe(`/payments/${paymentId}`);
          expect(answer.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
        }
        for (const answer of settled) expect(answer.body.paymentId).toBe(paymentId);
        expect(await sentByExecutors(chain)).toBe(sentBefore + 1);
        expect(new Set(settled.map((answer) => answer.body.transaction)).size).toBe(1);
        // Asked again, every instance answers the one transaction.
        const again = await Promise.all(instances.map((instance) => post(instance, "/settle", payment.body)));
        expect(again.map((answer) => [answer.status, answer.body.transaction])).toEqual(
          instances.map(() => [200, settled[0]?.body.transaction]),
        );
        const receipt = await c.public.getTransactionReceipt({ hash: settled[0]?.body.transaction as Hex });
        expect(receipt.status).toBe("success");
        expect(await tokenBalance(chain, c.token.address, payment.to)).toBe(3n * unit);
        expect(await tokenBalance(chain, c.token.address, payer.address)).toBe(7n * unit);
      } finally {
        await stopInstances(instances);
      }
    }, 60_000);
  }

  test("300 distinct settles spread over the three: 300 successes, no nonce error", async () => {
    const instances = await startInstances(3);
    try {
      const values = Array.from({ length: 300 }, (_, i) => BigInt(i + 1));
      const total = values.reduce((sum, value) => sum + value, 0n);
      const payer = await fundedPayer(total);
      const list = await payments(payer, values);
      const answers = await Promise.all(
        list.map((payment, i) => post(instances[i % 3] as ServiceProcess, "/settle", payment.body)),
      );
      const failures = answers.filter((answer) => answer.status !== 200);
      expect(failures.map((answer) => answer.body)).toEqual([]);
      expect(new Set(answers.map((answer) => answer.body.transaction)).size).toBe(300);
      for (const payment of list) expect(await tokenBalance(network, c.token.address, payment.to)).toBe(payment.value);
      expect(await tokenBalance(network, c.token.address, payer.address)).toBe(0n);
      const logs = instances.map((instance) => instance.output()).join("\n");
      expect(logs).not.toMatch(/nonce too low|nonce_gap|replacement transaction underpriced/i);
    } finally {
      await stopInstances(instances);
    }
  }, 120_000);

  test("an instance killed with settlements in flight: another finishes each exactly once", async () => {
    const instances = await startInstances(3, SHORT_LEASE_MS);
    const [doomed, ...survivors] = instances as [ServiceProcess, ...ServiceProcess[]];
    try {
      const values = [1n, 2n, 3n].map((v) => v * unit);
      const payer = await fundedPayer(6n * unit);
      const list = await payments(payer, values);
      await killWithSettlesInFlight(doomed, list);
      for (const payment of list) expect(await authorizationUsed(payer.address, payment)).toBe(false);

      // The dead instance's key lease expires; the next orphan sweep (one survivor, under the database lock) resumes
      // its records' signed transactions.
      await until(() => allUsed(payer.address, list), "a survivor to finish the dead instance's settlements");
      // Each record resolved once, by one survivor (the sweep's lock); its log line follows the receipt.
      const reconciled = () =>
        survivors
          .map((instance) => instance.output())
          .join("\n")
          .match(/"event":"settlement_reconciled"/g)?.length ?? 0;
      await until(async () => reconciled() >= list.length, "the reconciliations' log lines", 10_000);
      await Bun.sleep(500);
      expect(reconciled()).toBe(list.length);
      for (const [i, payment] of list.entries()) {
        const again = await post(survivors[i % 2] as ServiceProcess, "/settle", payment.body);
        expect(again.status).toBe(200);
        expect(again.body).toMatchObject({ success: true });
        expect(await tokenBalance(network, c.token.address, payment.to)).toBe(payment.value);
      }
      expect(await tokenBalance(network, c.token.address, payer.address)).toBe(0n);
    } finally {
      await stopInstances(survivors);
    }
  }, 90_000);

  test("a replacement instance takes over a dead instance's keys and first resolves what they left in flight", async () => {
    const [doomed] = (await startInstances(1, SHORT_LEASE_MS, 8)) as [ServiceProcess];
    let replacement: ServiceProcess | undefined;
    try {
      const payer = await fundedPayer(6n * unit);
      const list = await payments(
        payer,
        [1n, 2n, 3n].map((v) => v * unit),
      );
      await killWithSettlesInFlight(doomed, list);
      await Bun.sleep(SHORT_LEASE_MS); // the dead instance's leases expire

      [replacement] = (await startInstances(1, SHORT_LEASE_MS, 8)) as [ServiceProcess];
      await until(() => allUsed(payer.address, list), "the replacement to finish the dead instance's settlements");
      const resolved = () => (replacement as ServiceProcess).output();
      await until(async () => resolved().includes('"event":"key_lease_takeover_resolved"'), "the takeover's log line");
      for (const payment of list) {
        const again = await post(replacement, "/settle", payment.body);
        expect([again.status, again.body.success]).toEqual([200, true]);
        expect(await tokenBalance(network, c.token.address, payment.to)).toBe(payment.value);
      }
      expect(await tokenBalance(network, c.token.address, payer.address)).toBe(0n);
    } finally {
      if (replacement) await stopInstances([replacement]);
    }
  }, 90_000);

  test("a deployment batch settled on one instance and claimed on the others: one fee, every wallet", async () => {
    const instances = await startInstances(3);
    const [first, ...others] = instances as [ServiceProcess, ...ServiceProcess[]];
    try {
      const admin = { "x-admin-api-key": first.adminApiKey };
      const client = {
        post: (path: string, body: unknown, headers?: Record<string, string>) => post(first, path, body, headers),
      };
      const salts = [randomSalt(), randomSalt(), randomSalt()];
      const flow = await eoaDeployment(client, { network, salts, funding: salts.map(() => unit) });
      const recipientBefore = await tokenBalance(network, c.token.address, c.info.feeRecipient);
      const verify = await post(first, "/deploy/verify", flow.body, admin);
      expect(verify.status).toBe(200);
      const settle = post(first, "/deploy/settle", { ...flow.body, wallets: verify.body.wallets }, admin);
      const claims = others.map((instance) =>
        post(instance, "/wallet/claim", { network, payerAddress: flow.payer.address }, admin),
      );
      const settled = await settle;
      await Promise.all(claims);
      expect(settled.status).toBe(200);
      expect(settled.body).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, fundingSuccess: true });
      // Claimed again on the others after the settle: nothing left to do (404), nothing charged.
      for (const instance of others) {
        const claim = await post(instance, "/wallet/claim", { network, payerAddress: flow.payer.address }, admin);
        expect([claim.status, claim.body.code]).toEqual([404, "not_found"]);
      }
      expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(recipientBefore + flow.fee);
      expect(await tokenBalance(network, c.token.address, flow.payer.address)).toBe(1000n * unit - flow.total);
      for (const wallet of flow.wallets) {
        expect(((await c.public.getCode({ address: wallet.address })) ?? "0x") !== "0x").toBe(true);
        expect(await tokenBalance(network, c.token.address, wallet.address)).toBe(unit);
      }
    } finally {
      await stopInstances(instances);
    }
  }, 90_000);
});
