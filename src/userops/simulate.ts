import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { type Address, decodeErrorResult, type Hex, parseAbi } from "viem";
import { isExecutionReverted, revertDataOf } from "../chain/errors";
import { ApiError, Relay402Error } from "../errors";
import { shortReason } from "../logger";
import type { UserOpNetwork } from "./user-op-network";

/**
 * What a sponsored batch may revert with: the contracts it calls (relayer, privacy pool, tokens) and the
 * builtins (`Error(string)`, `Panic(uint256)`), which viem decodes without an entry.
 */
const REVERT_ABI = [
  ...relayerSwapAbi,
  ...privacyPoolAbi,
  ...parseAbi([
    "error EnforcedPause()",
    "error SafeERC20FailedOperation(address token)",
    "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
    "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
    "error ERC20InvalidReceiver(address receiver)",
  ]),
];

/** A sponsored UserOp's calls would revert: the revert data, if the node gave it, and its decoded reason. */
export class SimulatedRevertError extends Relay402Error {
  override name = "SimulatedRevertError";
  constructor(
    readonly data: Hex | undefined,
    /** The custom error's name, `Error` (a revert string) or `Panic`; undefined when it could not be decoded. */
    readonly errorName: string | undefined,
    /** For a client: `LeafAlreadyExists()`, the revert string, `Panic(17)`, or the selector. */
    readonly reason: string,
  ) {
    super(`the UserOp's calls revert: ${reason}`);
  }
}

/** The reason a revert gives, decoded with the ABIs of what a sponsored batch calls. */
export function decodeRevert(data: Hex): { errorName: string | undefined; reason: string } {
  try {
    const decoded = decodeErrorResult({ abi: REVERT_ABI, data });
    const errorName: string = decoded.errorName;
    const args = (decoded.args ?? []) as readonly unknown[];
    if (errorName === "Error") return { errorName, reason: String(args[0]) };
    return { errorName, reason: `${errorName}(${args.map(String).join(", ")})` };
  } catch {
    return { errorName: undefined, reason: data === "0x" ? "reverted without a reason" : data.slice(0, 10) };
  }
}

/**
 * The kernel's one simulation of a sponsored UserOp's calls: the wallet's `callData` run as the EntryPoint runs
 * it (from the EntryPoint, at the latest block), in one eth_call; nothing is signed or sent. The bundler's
 * estimate simulates too, but a failed estimate does not say whether the calls reverted or the node failed, and
 * settle has no estimate. A revert is a SimulatedRevertError; a chain that cannot answer is blockchain_error.
 */
export async function simulateUserOpCalls(network: UserOpNetwork, sender: Address, callData: Hex): Promise<void> {
  try {
    await network.runtime.client.call({ account: network.entryPoint, to: sender, data: callData });
  } catch (error) {
    const data = revertDataOf(error);
    if (data !== undefined) {
      const { errorName, reason } = decodeRevert(data);
      throw new SimulatedRevertError(data, errorName, reason);
    }
    // A node that says "reverted" without the data: still calls that would revert, not a chain failure.
    if (isExecutionReverted(error)) throw new SimulatedRevertError(undefined, undefined, shortReason(error));
    throw new ApiError("blockchain_error", "failed to simulate the UserOp", { reason: shortReason(error) });
  }
}

/**
 * The answer to a simulated revert when the flow has no better one: 400 `userop_error` naming the request field
 * the calls came from and the decoded reason (`details.revert` the error's name, for flows that map it further).
 */
export const revertRefusal = (revert: SimulatedRevertError, field: string, details: Record<string, unknown> = {}) =>
  new ApiError("userop_error", `the UserOp would revert: ${revert.reason}`, {
    field,
    reason: revert.reason,
    ...(revert.errorName ? { revert: revert.errorName } : {}),
    ...details,
  });
