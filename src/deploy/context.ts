import type { NetworkRuntime, Networks } from "../chain/networks";
import { createKeyedLock } from "../concurrency/keyed-lock";
import { createSingleFlight } from "../concurrency/single-flight";
import type { Config } from "../config/schema";
import type { Async } from "../db/async-port";
import type { DeploymentBatch } from "../db/schema";
import type { DenyCounters } from "../deny/deny-counters";
import { ApiError } from "../errors";
import type { Logger } from "../logger";
import { paymentRulesFor } from "../settlement/payment-rules";
import type { RelayerPort } from "../settlement/relayer-port";
import type { PaymentSettler } from "../settlement/settle-payment";
import type { SettlementStore } from "../settlement/settlement-store";
import type { AsyncIssuedUserOpStore } from "../userops/issued-user-op-store";
import { userOpNetworkOf } from "../userops/user-op-network";
import type { StepDeps } from "./chain-steps";
import { type AsyncDeploymentStore, type NewBatch, type NewWallet, WalletReservedError } from "./deployment-store";
import { type FeePaymentDeps, payFeeByAuthorization, payFeeByUserOp } from "./fee-payment";

export type DeployDeps = {
  config: Config;
  networks: Networks;
  /** The deployment store as an async port: SQLite's through asAsync, or PostgreSQL's. */
  store: AsyncDeploymentStore;
  settler: PaymentSettler;
  /** The EOA settlement store (the fee's record), as the settler's. */
  settlements: Async<SettlementStore>;
  issued: AsyncIssuedUserOpStore;
  relayerFor(network: NetworkRuntime): RelayerPort;
  deny: DenyCounters;
  now(): bigint;
  logger: Logger;
};

/** What every deployment flow shares: stores, per-network handles, locks, batch creation and the fee payment. */
export function createDeployContext(deps: DeployDeps) {
  const withLock = createKeyedLock();
  const once = createSingleFlight();

  const stepDeps = (runtime: NetworkRuntime): StepDeps => ({
    store: deps.store,
    network: runtime,
    relayer: deps.relayerFor(runtime),
    rules: paymentRulesFor(runtime, deps.deny),
    now: deps.now,
    logger: deps.logger,
  });
  const feeDeps: FeePaymentDeps = {
    store: deps.store,
    settler: deps.settler,
    settlements: deps.settlements,
    issued: deps.issued,
    logger: deps.logger,
    deny: deps.deny,
  };

  async function createBatch(batch: NewBatch, wallets: NewWallet[]): Promise<DeploymentBatch> {
    // With several instances, one holding no key lease answers 503 before it reserves wallets it could not deploy.
    deps.networks.get(batch.network).executor.requireKey();
    try {
      return await deps.store.create(batch, wallets);
    } catch (error) {
      if (error instanceof WalletReservedError) {
        throw new ApiError("validation_error", error.message, {
          field: "paymentRequirements.deployment.salts",
          wallet: error.walletAddress,
        });
      }
      // Another request or instance created the same batch between our read and insert (its batch_key is unique).
      const existing = await deps.store.findBatch(batch.batchKey);
      if (existing) return existing;
      throw error;
    }
  }

  async function pay(batch: DeploymentBatch): Promise<void> {
    const runtime = deps.networks.get(batch.network);
    if (batch.flow === "eoa") await payFeeByAuthorization(feeDeps, userOpNetworkOf(runtime), batch);
    else await payFeeByUserOp(feeDeps, userOpNetworkOf(runtime), batch);
  }

  return {
    ...deps,
    rulesFor: (runtime: NetworkRuntime) => paymentRulesFor(runtime, deps.deny),
    stepDeps,
    feeDeps,
    withLock,
    once,
    createBatch,
    pay,
  };
}

export type DeployContext = ReturnType<typeof createDeployContext>;
