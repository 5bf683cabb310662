import { type Address, encodeAbiParameters, encodeFunctionData, type Hex, padHex } from "viem";
import { accountAbi } from "./abis.js";

export type Call = { to: Address; value?: bigint; data: Hex };

/** ERC-7579 mode: call type 0x01 (batch), exec type 0x00 (revert on failure), no selector or payload. */
export const BATCH_EXECUTION_MODE: Hex = padHex("0x01", { dir: "right", size: 32 });

/** `execute(mode, abi.encode(Execution[]))` of an ERC-7579 account running `calls` as one batch. */
export function encodeBatchExecution(calls: readonly Call[]): Hex {
  const executions = encodeAbiParameters(
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
    [calls.map((call) => ({ target: call.to, value: call.value ?? 0n, callData: call.data }))],
  );
  return encodeFunctionData({ abi: accountAbi, functionName: "execute", args: [BATCH_EXECUTION_MODE, executions] });
}
