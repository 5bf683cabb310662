import { type Address, decodeAbiParameters, decodeFunctionData, type Hex, isAddressEqual } from "viem";
import { Relay402ClientError } from "./errors.js";
import { accountAbi } from "./wire/abis.js";
import type { Call } from "./wire/execution.js";
import { fromRpcUserOp, type RpcUserOp, userOpHash } from "./wire/user-operation.js";

/**
 * What every UserOp checker of the client shares: reading the wallet's batch back into calls, and the envelope
 * of a sponsored UserOp (who sends it, no deployment, our paymaster, the hash the owner is asked to sign).
 */

/** Where the UserOp must come from and be hashed (from /config and the caller). */
export type UserOpEnvelope = { sender: Address; paymaster: Address; entryPoint: Address; chainId: number };

/** A refusal of the service's UserOp, naming the field at fault (`details.field`). */
export const refuseUserOp = (field: string, message: string) =>
  new Relay402ClientError("unexpected_response", `the service's UserOp ${message}`, { field });

/** The calls of an ERC-7579 batch `execute` (undefined when the callData is anything else). */
export function decodeBatch(callData: Hex): Call[] | undefined {
  try {
    const { functionName, args } = decodeFunctionData({ abi: accountAbi, data: callData });
    if (functionName !== "execute") return undefined;
    const [executions] = decodeAbiParameters(
      [
        {
          type: "tuple[]",
          components: [
            { name: "target", type: "address" },
            { name: "value", type: "uint256" },
            { name: "callData", type: "bytes" },
          ],
        },
      ],
      args[1] as Hex,
    );
    return executions.map((execution) => ({ to: execution.target, value: execution.value, data: execution.callData }));
  } catch {
    return undefined;
  }
}

/** Sender, no factory, our paymaster, and a userOpHash that is this UserOp's hash on this chain's EntryPoint. */
export function assertUserOpEnvelope(userOp: RpcUserOp, hash: Hex, expected: UserOpEnvelope): void {
  if (!isAddressEqual(userOp.sender, expected.sender))
    throw refuseUserOp("userOp.sender", `is sent by ${userOp.sender}`);
  if (userOp.factory) throw refuseUserOp("userOp.factory", "deploys a wallet");
  if (!isAddressEqual(userOp.paymaster, expected.paymaster)) {
    throw refuseUserOp("userOp.paymaster", "names another paymaster");
  }
  if (userOpHash(fromRpcUserOp(userOp), expected.chainId, expected.entryPoint).toLowerCase() !== hash.toLowerCase()) {
    throw new Relay402ClientError("unexpected_response", "the service's userOpHash is not the hash of its UserOp", {
      field: "userOpHash",
    });
  }
}
