import {
  type Address,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  multicall3Abi,
  parseEventLogs,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionReceipt,
} from "viem";
import { factoryAbi, relayerAbi } from "../chain/abis";
import { MULTICALL3 } from "../chain/addresses";
import { BroadcastRejectedError } from "../chain/errors";
import type { NetworkRuntime } from "../chain/networks";
import type { DeploymentWallet } from "../db/schema";

import { type Logger, shortReason } from "../logger";
import type { Authorization } from "../payments/authorization";
import type { RelayerPort } from "../payments/relayer-port";
import { verifyPayment } from "../payments/verify-payment";
import { deployedAddresses } from "./addresses";
import type { DeploymentStore, Phase } from "./deployment-store";
import { groupBy } from "./group-by";

/** Gas per factory call through Multicall3 (createAccount measures ~96k) and the multicall's own overhead. */
const CREATE_ACCOUNT_GAS = 160_000n;
const MULTICALL_OVERHEAD_GAS = 60_000n;

export type StepOutcome = { walletAddress: string; ok: boolean; txHash: string | null; reason?: string };

export type StepDeps = {
  store: DeploymentStore;
  network: NetworkRuntime;
  relayer: RelayerPort;
  now: () => bigint;
  logger: Logger;
};

export const authorizationOf = (row: DeploymentWallet): Authorization => {
  const raw = JSON.parse(row.fundingAuthorization ?? "null") as Record<string, string> | null;
  if (!raw) throw new Error(`wallet ${row.walletAddress} has no funding authorization`);
  return {
    ...(raw as unknown as Authorization),
    value: BigInt(raw.value as string),
    validAfter: BigInt(raw.validAfter as string),
    validBefore: BigInt(raw.validBefore as string),
  };
};

const aggregate = (calls: { target: Address; callData: Hex }[]) =>
  encodeFunctionData({
    abi: multicall3Abi,
    functionName: "aggregate3",
    args: [calls.map((call) => ({ ...call, allowFailure: true }))],
  });

/** Per-wallet truth after a transaction: deployed ⇔ code at the address; funded ⇔ the relayer used the authorization. */
async function judge(
  deps: StepDeps,
  phase: Phase,
  rows: DeploymentWallet[],
  receipt: TransactionReceipt | null,
): Promise<boolean[]> {
  if (phase === "deployment") {
    const deployed = await deployedAddresses(
      deps.network.client,
      rows.map((row) => row.walletAddress as Address),
    );
    return rows.map((row) => deployed.has(row.walletAddress));
  }
  if (receipt) {
    const used = parseEventLogs({ abi: relayerAbi, logs: receipt.logs, eventName: "AuthorizationUsed" })
      .filter((log) => isAddressEqual(log.address, deps.network.config.contracts.relayer as Address))
      .map((log) => `${log.args.authorizer.toLowerCase()}:${log.args.nonce.toLowerCase()}`);
    return rows.map((row) => {
      const a = authorizationOf(row);
      return used.includes(`${a.from.toLowerCase()}:${a.nonce.toLowerCase()}`);
    });
  }
  return Promise.all(
    rows.map((row) => deps.relayer.authorizationState(authorizationOf(row).from, authorizationOf(row).nonce)),
  );
}

async function record(
  deps: StepDeps,
  phase: Phase,
  rows: DeploymentWallet[],
  receipt: TransactionReceipt | null,
  txHash: string,
): Promise<StepOutcome[]> {
  const verdicts = await judge(deps, phase, rows, receipt);
  const failure =
    receipt?.status === "reverted"
      ? "transaction reverted"
      : phase === "deployment"
        ? "factory call failed"
        : "funding transfer failed";
  return rows.map((row, i) => {
    const ok = verdicts[i] === true;
    deps.store.markOutcome(phase, row.id, { status: ok ? "success" : "failed", txHash, error: ok ? null : failure });
    return { walletAddress: row.walletAddress, ok, txHash, reason: ok ? undefined : failure };
  });
}

/**
 * One transaction for every leased wallet of a step: the rows are marked sent (hash and raw
 * transaction) before the broadcast, and each gets its own outcome from the chain afterwards.
 */
async function sendStep(
  deps: StepDeps,
  phase: Phase,
  rows: DeploymentWallet[],
  request: { to: Address; data: Hex; gas: bigint },
): Promise<StepOutcome[]> {
  const ids = rows.map((row) => row.id);
  let prepared: Awaited<ReturnType<NetworkRuntime["executor"]["prepare"]>>;
  try {
    prepared = await deps.network.executor.prepare(request);
  } catch (error) {
    const reason = `could not prepare the transaction: ${shortReason(error)}`;
    for (const row of rows) deps.store.markOutcome(phase, row.id, { status: "failed", error: reason });
    return rows.map((row) => ({ walletAddress: row.walletAddress, ok: false, txHash: null, reason }));
  }
  deps.store.markSent(phase, ids, prepared.hash, prepared.raw);
  try {
    const receipt = await deps.network.executor.send(prepared, {
      onReplaced: (hash) => deps.store.markReplaced(phase, ids, hash),
    });
    return await record(deps, phase, rows, receipt, receipt.transactionHash);
  } catch (error) {
    if (error instanceof BroadcastRejectedError) {
      // The node refused it, so it can never be mined: the rows are retryable by a claim, with a new transaction.
      const reason = `the node refused the transaction (${shortReason(error)}); claim again later`;
      deps.logger.warn({
        event: "deployment_step_refused",
        phase,
        network: deps.network.name,
        transaction: prepared.hash,
        reason: shortReason(error),
      });
      deps.store.markRefused(phase, ids, reason);
      return rows.map((row) => ({ walletAddress: row.walletAddress, ok: false, txHash: null, reason }));
    }
    deps.logger.warn({
      event: "deployment_step_unconfirmed",
      phase,
      network: deps.network.name,
      transaction: prepared.hash,
      reason: shortReason(error),
    });
    const reason = `transaction ${prepared.hash} not confirmed yet (${shortReason(error)}); claim again later`;
    return rows.map((row) => ({ walletAddress: row.walletAddress, ok: false, txHash: prepared.hash, reason }));
  }
}

/** Deploys the given wallets (already leased) with one Multicall3 transaction of factory calls. */
export function deployWallets(deps: StepDeps, rows: DeploymentWallet[]): Promise<StepOutcome[]> {
  const factory = deps.network.config.contracts.factory as Address;
  const data = aggregate(
    rows.map((row) => ({
      target: factory,
      callData: encodeFunctionData({
        abi: factoryAbi,
        functionName: "createAccount",
        args: [row.owner as Address, row.salt as Hex],
      }),
    })),
  );
  return sendStep(deps, "deployment", rows, {
    to: MULTICALL3,
    data,
    gas: MULTICALL_OVERHEAD_GAS + CREATE_ACCOUNT_GAS * BigInt(rows.length),
  });
}

/**
 * Funds the given deployed wallets (already leased): each authorization is re-checked first (a payload that
 * can no longer pay fails here, without gas), the rest go in one Multicall3 transaction to the relayer.
 */
export async function fundWallets(deps: StepDeps, rows: DeploymentWallet[]): Promise<StepOutcome[]> {
  const relayer = deps.network.config.contracts.relayer as Address;
  const checks = await Promise.all(
    rows.map((row) =>
      verifyPayment(
        { relayer: deps.relayer, relayerAddress: relayer, now: deps.now },
        authorizationOf(row),
        relayer,
      ).catch((error) => ({
        isValid: false as const,
        invalidMessage: shortReason(error),
      })),
    ),
  );
  const outcomes: StepOutcome[] = [];
  const payable: DeploymentWallet[] = [];
  rows.forEach((row, i) => {
    const check = checks[i];
    if (check?.isValid) {
      payable.push(row);
      return;
    }
    const reason = `funding payload no longer valid: ${check && !check.isValid ? check.invalidMessage : "unknown"}`;
    deps.store.markOutcome("funding", row.id, { status: "failed", error: reason });
    outcomes.push({ walletAddress: row.walletAddress, ok: false, txHash: null, reason });
  });
  if (payable.length === 0) return outcomes;
  const data = aggregate(
    payable.map((row) => ({ target: relayer, callData: deps.relayer.transferCallData(authorizationOf(row)) })),
  );
  const gas = MULTICALL_OVERHEAD_GAS + BigInt(deps.network.config.settleGasLimit) * BigInt(payable.length);
  return [...outcomes, ...(await sendStep(deps, "funding", payable, { to: MULTICALL3, data, gas }))];
}

/**
 * Settles rows left `sent` (by a crash or a timeout): re-broadcast, wait for the receipt, and when the
 * sender's nonce moved on without it, decide from chain state (a replacement may have been mined instead).
 */
export async function resolveSent(
  deps: StepDeps,
  phase: Phase,
  rows: DeploymentWallet[],
  waitMs: number,
): Promise<StepOutcome[]> {
  const byTx = groupBy(rows, (row) => (phase === "deployment" ? row.deploymentTxHash : row.fundingTxHash) ?? "");
  const outcomes: StepOutcome[] = [];
  for (const [txHash, group] of byTx) {
    const raw = (phase === "deployment" ? group[0]?.deploymentRawTx : group[0]?.fundingRawTx) as Hex | null | undefined;
    if (raw) await deps.network.executor.rebroadcast(raw).catch(() => undefined);
    const receipt = txHash ? await deps.network.executor.waitForReceipt(txHash as Hex, waitMs) : null;
    if (receipt) {
      outcomes.push(...(await record(deps, phase, group, receipt, receipt.transactionHash)));
      continue;
    }
    if (raw && (await nonceConsumed(deps, raw))) {
      outcomes.push(...(await record(deps, phase, group, null, txHash)));
      continue;
    }
    const reason = `transaction ${txHash} not confirmed yet; claim again later`;
    outcomes.push(...group.map((row) => ({ walletAddress: row.walletAddress, ok: false, txHash, reason })));
  }
  return outcomes;
}

async function nonceConsumed(deps: StepDeps, raw: Hex): Promise<boolean> {
  try {
    const from = await recoverTransactionAddress({ serializedTransaction: raw as never });
    const { nonce } = parseTransaction(raw);
    const mined = await deps.network.client.getTransactionCount({ address: from, blockTag: "latest" });
    return nonce !== undefined && mined > nonce;
  } catch {
    return false;
  }
}
