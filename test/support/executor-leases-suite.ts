// The executor on key leases (src/chain/executor.ts with `leases`), written once and run on each database:
// test/chain/executor-leases-postgres.test.ts and executor-leases-sqlite.test.ts. Every "instance" is an executor of
// its own (its own key pool, nonces and receipt poller) with a lease store on a connection (pool) of its own and an
// instance id of its own, on one real database; the chain is the test devnet's bsc, and it judges: nonces, receipts.
import { expect, test } from "bun:test";
import { type Address, type Hex, parseEther, parseGwei } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { KeyLeaseLostError, NoKeyLeaseError } from "../../src/chain/errors";
import { createExecutor, type Executor, type ExecutorLeaseOptions } from "../../src/chain/executor";
import type { KeyLeaseStore } from "../../src/chain/key-lease-store";
import { createKeyLeases } from "../../src/chain/key-leases";
import { createNetworks } from "../../src/chain/networks";
import { createChainClient } from "../../src/chain/rpc";
import { createLogger } from "../../src/logger";
import { signedPayment } from "./authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress, tokenBalance } from "./chain";
import { getTestDevnet } from "./devnet";
import { startTestService } from "./service";
import { until as untilWithin } from "./until";

const until = (what: string, check: () => boolean | Promise<boolean>) =>
  untilWithin(what, check, { timeoutMs: 15_000 });

export type LeaseDatabase = {
  /** A new connection (pool) to the shared database: one instance's. */
  connect(): Promise<{ store: KeyLeaseStore; close(): Promise<void> }>;
  /** Runs SQL on the shared database outside every instance (a lease cut short, as a clock jump would). */
  exec(statement: string): Promise<void>;
};

const c = () => chainOf("bsc");
const transfer = () => ({ to: randomAddress(), data: "0x" as Hex, value: 1n, gas: 21_000n });

let networks = 0;
/** A lease network of its own per test, so tests on one database never see each other's rows. */
const freshNetwork = () => `executor-leases-${process.pid}-${++networks}`;

/** Executor keys of the test's own, funded: no other test sends with them. */
async function fundedKeys(count: number): Promise<Hex[]> {
  const keys = Array.from({ length: count }, () => generatePrivateKey());
  for (const key of keys)
    await c().test.setBalance({ address: privateKeyToAccount(key).address, value: parseEther("10") });
  return keys;
}

const nonceOf = (address: Address, blockTag: "latest" | "pending") =>
  c().public.getTransactionCount({ address, blockTag });

async function withManualMining<T>(run: () => Promise<T>): Promise<T> {
  await c().test.setAutomine(false);
  try {
    return await run();
  } finally {
    await c().test.mine({ blocks: 1 });
    await c().test.setAutomine(true);
  }
}

export function executorLeaseSuite(database: LeaseDatabase) {
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const done of cleanups.splice(0).reverse()) await done().catch(() => undefined);
  };

  /** One instance's executor on key leases: its own connection, id, pool and nonces. */
  async function instance(
    id: string,
    privateKeys: Hex[],
    leases: Omit<ExecutorLeaseOptions, "store" | "instanceId" | "leaseMs"> & { leaseMs?: number },
  ) {
    const connection = await database.connect();
    const info = c().info;
    const executor = createExecutor({
      client: createChainClient({ chainId: info.chainId, rpcUrls: [info.rpcUrl] }),
      chainId: info.chainId,
      privateKeys,
      maxFeePerGasCap: parseGwei("1000"),
      receiptTimeoutMs: 60_000,
      replaceAfterMs: 60_000,
      pollIntervalMs: 50,
      leases: { leaseMs: 1_500, ...leases, store: connection.store, instanceId: id },
    });
    const takenOver: Address[] = [];
    executor.onKeyTakenOver((address) => {
      // Awaited before the key is handed out: the dead holder's sent transactions are resolved first.
      expect(executor.heldKeys()).not.toContain(address);
      takenOver.push(address);
    });
    cleanups.push(async () => {
      await executor.stop({ releaseLeases: false });
      await connection.close();
    });
    return { executor, takenOver, store: connection.store };
  }

  test("two instances sharing 2 keys with 1 lease each send 40 transactions at once: each key from one instance, all mined, no nonce error", async () => {
    try {
      const network = freshNetwork();
      const keys = await fundedKeys(2);
      const addresses = keys.map((key) => privateKeyToAccount(key).address);
      const a = await instance("a", keys, { network, want: 1 });
      const b = await instance("b", keys, { network, want: 1 });
      await Promise.all([a.executor.start(), b.executor.start()]);
      const [heldA] = a.executor.heldKeys();
      const [heldB] = b.executor.heldKeys();
      expect(a.executor.heldKeys().length).toBe(1);
      expect(b.executor.heldKeys().length).toBe(1);
      expect(new Set([heldA, heldB])).toEqual(new Set(addresses));

      const sends = (executor: Executor) => Promise.all(Array.from({ length: 20 }, () => executor.execute(transfer())));
      const [fromA, fromB] = await Promise.all([sends(a.executor), sends(b.executor)]);
      for (const [results, held] of [
        [fromA, heldA],
        [fromB, heldB],
      ] as const) {
        expect(results.every(({ receipt }) => receipt.status === "success")).toBe(true);
        // Every transaction of an instance from the key it leases, and its nonces 0..19 each once.
        expect(new Set(results.map(({ receipt }) => receipt.from.toLowerCase()))).toEqual(
          new Set([(held as string).toLowerCase()]),
        );
        expect(results.map(({ prepared }) => prepared.nonce).sort((x, y) => x - y)).toEqual(
          Array.from({ length: 20 }, (_, i) => i),
        );
        expect(await nonceOf(held as Address, "latest")).toBe(20);
      }
      expect(a.takenOver).toEqual([]);
      expect(b.takenOver).toEqual([]);
    } finally {
      await cleanup();
    }
  }, 60_000);

  test("an instance that stops heartbeating: the other takes its key after expiry, the hook fires, its next nonce is the chain's pending count, and the dead one's transaction in flight still gets its receipt", async () => {
    try {
      const network = freshNetwork();
      const keys = await fundedKeys(2);
      const dead = await instance("dead", keys, { network, want: 1 });
      await dead.executor.start();
      const heir = await instance("heir", keys, { network, want: 2 });
      await heir.executor.start();
      const [deadKey] = dead.executor.heldKeys() as [Address];
      const [heirKey] = heir.executor.heldKeys() as [Address];
      expect(heir.executor.heldKeys()).toEqual([heirKey]);
      expect(heirKey).not.toBe(deadKey);
      // The dead instance's first transaction, mined.
      expect((await dead.executor.execute(transfer())).receipt.status).toBe("success");

      await withManualMining(async () => {
        // Its second is in the node's pool, not mined, when it stops heartbeating (renewing nothing, releasing nothing).
        const prepared = await dead.executor.prepare(transfer());
        expect(prepared.nonce).toBe(1);
        const inFlight = dead.executor.send(prepared);
        await until("the node to hold it", async () => (await nonceOf(deadKey, "pending")) === 2);
        await dead.executor.keyLeases?.stop({ release: false });
        expect(dead.executor.heldKeys()).toEqual([]);
        await expect(dead.executor.prepare(transfer())).rejects.toBeInstanceOf(NoKeyLeaseError);

        await until("the heir to take the key over", () => heir.executor.heldKeys().includes(deadKey));
        expect(heir.takenOver).toEqual([deadKey]);
        expect(await nonceOf(deadKey, "latest")).toBe(1);
        // Two at once: the heir's two keys get one each; the taken-over key's continues from the pending count (2),
        // past the dead instance's transaction in the pool, not from the mined count (1).
        const [first, second] = [await heir.executor.prepare(transfer()), await heir.executor.prepare(transfer())];
        const onDeadKey = [first, second].find((p) => p.from === deadKey);
        expect(onDeadKey?.nonce).toBe(2);
        const sent = [first, second].map((p) => heir.executor.send(p));
        await until(
          "the node to hold both",
          async () => (await nonceOf(deadKey, "pending")) === 3 && (await nonceOf(heirKey, "pending")) === 1,
        );
        await c().test.mine({ blocks: 1 });
        const receipts = await Promise.all([inFlight, ...sent]);
        expect(receipts.map((receipt) => receipt.status)).toEqual(["success", "success", "success"]);
      });
      expect(await nonceOf(deadKey, "latest")).toBe(3);
      // One more from the taken-over key, mined on its own: the heir's bookkeeping of it goes on from there.
      const more = await Promise.all([heir.executor.execute(transfer()), heir.executor.execute(transfer())]);
      expect(more.every(({ receipt }) => receipt.status === "success")).toBe(true);
      expect(more.find(({ prepared }) => prepared.from === deadKey)?.prepared.nonce).toBe(3);
      expect(heir.takenOver).toEqual([deadKey]); // once
    } finally {
      await cleanup();
    }
  }, 60_000);

  test("a holder whose key was taken over does not broadcast what it signed before: the new holder sends that nonce", async () => {
    try {
      const network = freshNetwork();
      const keys = await fundedKeys(1);
      const [address] = keys.map((key) => privateKeyToAccount(key).address) as [Address];
      const holder = await instance("holder", keys, { network, leaseMs: 60_000 });
      await holder.executor.start();
      const prepared = await holder.executor.prepare(transfer());
      expect(prepared.nonce).toBe(0);
      // Its lease ends early (a heartbeat stuck longer than the lease), another instance takes the key over, and the
      // holder's next renewal finds that out.
      await database.exec(`UPDATE key_leases SET expires_at = 0 WHERE network = '${network}'`);
      const thief = await instance("thief", keys, { network, leaseMs: 60_000 });
      await thief.executor.start();
      await until("the takeover", () => thief.executor.heldKeys().includes(address));
      expect(thief.takenOver).toEqual([address]);
      await holder.executor.keyLeases?.heartbeat();
      expect(holder.executor.heldKeys()).toEqual([]);

      const refused = await holder.executor.send(prepared).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(KeyLeaseLostError);
      expect(await nonceOf(address, "pending")).toBe(0);
      const { prepared: next, receipt } = await thief.executor.execute(transfer());
      expect(next.nonce).toBe(0);
      expect(receipt.status).toBe("success");
      expect(await nonceOf(address, "latest")).toBe(1);
    } finally {
      await cleanup();
    }
  }, 60_000);

  test("an instance holding no lease refuses with NoKeyLeaseError: the service answers 503 with Retry-After and /health is degraded; once the key is free it settles", async () => {
    const service = startTestService();
    try {
      const network = freshNetwork();
      const runtime = service.services.networks.get("bsc");
      const keys = runtime.config.executorKeys;
      // Another instance holds every key of the network.
      const other = await database.connect();
      const otherLeases = createKeyLeases({
        store: other.store,
        network,
        addresses: keys.map((key) => privateKeyToAccount(key).address),
        instanceId: "other",
        leaseMs: 60_000,
      });
      cleanups.push(async () => {
        await otherLeases.stop();
        await other.close();
      });
      await otherLeases.start();
      const starved = await instance("starved", keys, { network, leaseMs: 3_000 });
      await starved.executor.start();
      expect(starved.executor.heldKeys()).toEqual([]);
      await expect(starved.executor.prepare(transfer())).rejects.toBeInstanceOf(NoKeyLeaseError);
      await expect(starved.executor.simulate(transfer())).rejects.toBeInstanceOf(NoKeyLeaseError);
      expect(() => starved.executor.requireKey()).toThrow(NoKeyLeaseError);

      // The service's bsc executor is this instance's now.
      const own = runtime.executor;
      runtime.executor = starved.executor;
      cleanups.push(async () => {
        runtime.executor = own;
      });
      const payer = await freshPayer("bsc");
      const unit = 10n ** BigInt(c().token.decimals);
      await approveRelayer("bsc", payer.key, 10n * unit);
      const to = randomAddress();
      const body = await signedPayment({ network: "bsc", key: payer.key, to, value: unit });
      const refused = await service.post("/settle", body);
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe("service_unavailable");
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.body.details).toEqual({ retryAfterSeconds: 1 });
      expect(await tokenBalance("bsc", c().token.address, to)).toBe(0n);

      const admin = { "x-admin-api-key": service.config.adminApiKey };
      const health = await service.get("/health", admin);
      expect(health.status).toBe(200);
      expect(health.body.status).toBe("degraded");
      expect(health.body.networks.bsc.keyLeases).toMatchObject({ status: "none_held", held: 0, keys: keys.length });
      expect(health.body.networks.base.keyLeases).toBeNull();
      const metrics = await service.get("/metrics", { "x-admin-api-key": service.config.adminApiKey });
      expect(metrics.body).toContain('relay402_executor_keys_held{network="bsc"} 0');
      expect(metrics.body).toContain(`relay402_executor_keys_held{network="base"} ${keys.length}`);

      // The other instance stops and releases its leases: this one takes them at its next heartbeat and settles.
      await otherLeases.stop();
      await starved.executor.keyLeases?.heartbeat();
      expect(starved.executor.heldKeys().length).toBe(keys.length);
      starved.executor.requireKey();
      expect(starved.takenOver).toEqual([]); // released keys are no takeover
      const settled = await service.post("/settle", body);
      expect(settled.status).toBe(200);
      expect(settled.body.success).toBe(true);
      expect(await tokenBalance("bsc", c().token.address, to)).toBe(unit);
      const healthy = await service.get("/health", admin);
      expect(healthy.body.networks.bsc.keyLeases).toEqual({ status: "ok", held: keys.length, keys: keys.length });
    } finally {
      await cleanup();
      service.stop();
    }
  }, 90_000);

  test("createNetworks with leases: each network's executor leases keyLeasesPerInstance keys for keyLeaseMs; stop releases them", async () => {
    const connection = await database.connect();
    const config = configFromManifest(getTestDevnet().devnet.manifest, {
      databasePath: ":memory:",
      keyLeaseMs: 2_000,
      keyLeasesPerInstance: 1,
    });
    const networks = createNetworks(
      config,
      createLogger({ silent: true }),
      { unavailable: {} },
      {
        store: connection.store,
        instanceId: "networks",
      },
    );
    try {
      expect(networks.all().map((n) => n.executor.heldKeys())).toEqual([[], []]);
      await networks.start();
      for (const runtime of networks.all()) {
        expect(runtime.executor.heldKeys().length).toBe(1);
        const rows = await connection.store.leases(runtime.name);
        expect(rows.map((row) => [row.address, row.holder])).toEqual([
          [(runtime.executor.heldKeys()[0] as string).toLowerCase(), "networks"],
        ]);
        // The lease is keyLeaseMs long, on the database's clock.
        expect((rows[0]?.expiresAt ?? 0) - (rows[0]?.heartbeatAt ?? 0)).toBe(2_000);
      }
      await networks.stop();
      for (const runtime of networks.all()) expect(await connection.store.leases(runtime.name)).toEqual([]);
    } finally {
      await networks.stop();
      await connection.close();
    }
  }, 60_000);

  test("without leases nothing changes: every key is held, start resolves at once", async () => {
    const info = c().info;
    const keys = await fundedKeys(2);
    const executor = createExecutor({
      client: createChainClient({ chainId: info.chainId, rpcUrls: [info.rpcUrl] }),
      chainId: info.chainId,
      privateKeys: keys,
      maxFeePerGasCap: parseGwei("1000"),
      receiptTimeoutMs: 60_000,
      replaceAfterMs: 60_000,
      pollIntervalMs: 50,
    });
    try {
      await executor.start();
      expect(executor.keyLeases).toBeUndefined();
      expect(executor.heldKeys()).toEqual(executor.addresses);
      const results = await Promise.all(Array.from({ length: 4 }, () => executor.execute(transfer())));
      expect(new Set(results.map(({ prepared }) => prepared.from)).size).toBe(2);
      expect(results.every(({ receipt }) => receipt.status === "success")).toBe(true);
    } finally {
      await executor.stop();
    }
  }, 60_000);
}
