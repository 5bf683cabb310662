// Fixtures of the deployment store's suites (deployment-store-suite.ts, deployment-steps-suite.ts): fresh batches and
// wallets, the instances of one database, and helpers to read Promise.allSettled's results.
import { afterAll, beforeAll } from "bun:test";
import type { AsyncDeploymentStore, NewBatch, NewWallet } from "../../src/deploy/deployment-store";

export type DeploymentStoreDatabase = {
  /** A new connection (pool) to the shared database: one instance's store. */
  connect(): Promise<{ store: AsyncDeploymentStore; close(): Promise<void> }>;
};

export const INSTANCES = 4;

let counter = 0;
export const unique = () => ++counter;
export const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
/** A fresh wallet address (mixed case on purpose: the store keeps addresses lower-cased). */
export const wallet = () =>
  `0xAbCd${(unique() * 7919 + Math.floor(Math.random() * 1e6)).toString(16).padStart(36, "0")}`;

export const newBatch = (overrides: Partial<NewBatch> = {}): NewBatch => ({
  batchKey: `test:${process.pid}:${unique()}:${Math.random()}`,
  network: "base",
  flow: "eoa",
  owner: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
  payer: `0xf39fd6e51aad88f6f4ce6ab8827279cfff${hex(unique(), 3).slice(2)}`,
  token: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
  feeRecipient: "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
  deploymentFee: "20000",
  fundingRequested: true,
  feeAuthorization: '{"from":"0x0"}',
  userOpHash: null,
  signedUserOp: null,
  ...overrides,
});

export const newWallet = (address = wallet(), funded = true): NewWallet => ({
  walletAddress: address,
  salt: hex(unique(), 32),
  fundingRequested: funded,
  fundingAmount: funded ? "1000000" : "0",
  fundingAuthorization: funded ? '{"nonce":"0x1"}' : null,
});

export const settled = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);
export const fulfilled = <T>(results: PromiseSettledResult<T>[]) =>
  results.filter((r): r is PromiseFulfilledResult<T> => r.status === "fulfilled").map((r) => r.value);
export const rejected = <T>(results: PromiseSettledResult<T>[]) =>
  results.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => r.reason as unknown);

/**
 * INSTANCES connections to the database, opened before the suite's tests and closed after them: `pick(i)` is one
 * instance's store, `store` the first one's (a stand-in until the connections are open, so tests can name it).
 */
export function storeInstances(database: DeploymentStoreDatabase) {
  let instances: { store: AsyncDeploymentStore; close(): Promise<void> }[] = [];
  const pick = (i: number) => (instances[i % instances.length] as { store: AsyncDeploymentStore }).store;
  beforeAll(async () => {
    instances = [];
    for (let i = 0; i < INSTANCES; i++) instances.push(await database.connect());
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
  });
  const store = new Proxy({} as AsyncDeploymentStore, {
    get: (_, key) => {
      const target = pick(0) as unknown as Record<string | symbol, unknown>;
      const value = target[key];
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { pick, store };
}
