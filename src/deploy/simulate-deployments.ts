import { factoryAbi } from "@relay402/client/wire/abis";
import {
  type Address,
  decodeErrorResult,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  multicall3Abi,
  type PublicClient,
  parseAbi,
} from "viem";
import { MULTICALL3 } from "../chain/addresses";
import { smartWalletOf } from "../config/capabilities";
import type { DeploymentWallet } from "../db/schema";
import { shortReason } from "../logger";
import { deployWallets, type StepDeps, type StepOutcome } from "./chain-steps";

/** Errors a factory call can revert with (the account's initializer runs inside createAccount). */
const factoryErrorsAbi = parseAbi([
  "error InvalidOwner()",
  "error InvalidInitialization()",
  "error FailedDeployment()",
  "error InsufficientBalance(uint256 balance, uint256 needed)",
]);

export type DeploymentToSimulate = { owner: string; salt: string };

/**
 * The verdict of one factory call run before it is sent. A revert that carries data is the factory's own
 * answer for this (owner, salt) — createAccount depends on nothing else — so it is `deterministic`: the same
 * call will revert every time. An empty revert (no code at the factory, out of gas) says nothing about the
 * wallet and may pass later.
 */
export type DeploymentVerdict = { ok: true } | { ok: false; deterministic: boolean; reason: string };

/**
 * Runs the factory calls as the deployment transaction would (one Multicall3 aggregate3 with allowFailure,
 * in the same order, so earlier calls' effects are seen by later ones) in one eth_call, and decodes each
 * call's success and revert data. Throws when the node cannot be asked.
 */
export async function simulateDeployments(
  client: PublicClient,
  factory: Address,
  wallets: readonly DeploymentToSimulate[],
): Promise<DeploymentVerdict[]> {
  const calls = wallets.map((wallet) => ({
    target: factory,
    allowFailure: true,
    callData: encodeFunctionData({
      abi: factoryAbi,
      functionName: "createAccount",
      args: [wallet.owner as Address, wallet.salt as Hex],
    }),
  }));
  const { data } = await client.call({
    to: MULTICALL3,
    data: encodeFunctionData({ abi: multicall3Abi, functionName: "aggregate3", args: [calls] }),
  });
  const results = decodeFunctionResult({ abi: multicall3Abi, functionName: "aggregate3", data: data ?? "0x" });
  return results.map(({ success, returnData }) => (success ? { ok: true } : verdictOfRevert(returnData)));
}

function verdictOfRevert(data: Hex): DeploymentVerdict {
  if (data === "0x") return { ok: false, deterministic: false, reason: "factory call reverts without a reason" };
  return { ok: false, deterministic: true, reason: `factory call reverts: ${describeRevert(data)}` };
}

/** "InvalidOwner()", "Error: some message", or the raw selector when the error is unknown. */
export function describeRevert(data: Hex): string {
  try {
    // viem adds Error(string) and Panic(uint256) to the ABI it decodes with.
    const decoded = decodeErrorResult({ abi: factoryErrorsAbi, data });
    const name = decoded.errorName as string;
    const args = ((decoded.args ?? []) as readonly unknown[]).map(String);
    return name === "Error" ? `Error: ${args[0]}` : `${name}(${args.join(", ")})`;
  } catch {
    return `unknown error ${data.slice(0, 10)}`;
  }
}

/**
 * Deploys the given (leased) wallets after simulating their factory calls: a call that reverts with a reason
 * is abandoned on the spot (never sent, never retried), one that reverts without a reason waits for a later
 * claim (not sent now either); only the calls that pass go into the transaction.
 */
export async function deploySimulated(deps: StepDeps, rows: DeploymentWallet[]): Promise<StepOutcome[]> {
  const { factory } = smartWalletOf(deps.network, "deployments");
  const notSent = async (
    row: DeploymentWallet,
    status: "failed" | "abandoned",
    reason: string,
  ): Promise<StepOutcome> => {
    await deps.store.markOutcome("deployment", row.id, { status, error: reason });
    return { walletAddress: row.walletAddress, ok: false, txHash: null, reason };
  };
  let verdicts: DeploymentVerdict[];
  try {
    verdicts = await simulateDeployments(deps.network.client, factory, rows);
  } catch (error) {
    const reason = `could not simulate the factory calls (${shortReason(error)}); claim again later`;
    return Promise.all(rows.map((row) => notSent(row, "failed", reason)));
  }
  const outcomes: StepOutcome[] = [];
  const sendable: DeploymentWallet[] = [];
  for (const [i, row] of rows.entries()) {
    const verdict = verdicts[i] ?? { ok: false, deterministic: false, reason: "factory call not simulated" };
    if (verdict.ok) {
      sendable.push(row);
    } else if (verdict.deterministic) {
      deps.logger.warn({
        event: "deployment_abandoned",
        network: deps.network.name,
        wallet: row.walletAddress,
        reason: verdict.reason,
      });
      outcomes.push(await notSent(row, "abandoned", verdict.reason));
    } else {
      outcomes.push(await notSent(row, "failed", `${verdict.reason} in simulation; not sent, claim again later`));
    }
  }
  if (sendable.length > 0) outcomes.push(...(await deployWallets(deps, sendable)));
  return outcomes;
}
