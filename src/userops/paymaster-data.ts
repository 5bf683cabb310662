import type { UserOp } from "@relay402/client/wire/user-operation";
import { type Address, concat, encodeAbiParameters, type Hex, keccak256, pad, toHex } from "viem";
import type { LocalAccount } from "viem/accounts";

const u128 = (value: bigint) => pad(toHex(value), { size: 16 });

/** Stand-in signature for gas estimation: right length, never valid (the paymaster answers "failed", not a revert). */
export const STUB_PAYMASTER_SIGNATURE: Hex = `0x${"ff".repeat(64)}1c`;

export type ValidityWindow = { validUntil: number; validAfter: number };

/**
 * What the Paymaster contract's `getHash` computes: the whole UserOp (but its signature and paymaster
 * data), the chain, the paymaster and the validity window. Computed here so signing needs no RPC.
 */
export function paymasterHash(op: UserOp, chainId: number, paymaster: Address, window: ValidityWindow): Hex {
  const initCode = op.factory ? concat([op.factory, op.factoryData ?? "0x"]) : "0x";
  return keccak256(
    encodeAbiParameters(
      [
        { type: "address" },
        { type: "uint256" },
        { type: "bytes32" },
        { type: "bytes32" },
        { type: "bytes32" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "bytes32" },
        { type: "uint256" },
        { type: "address" },
        { type: "uint48" },
        { type: "uint48" },
      ],
      [
        op.sender,
        op.nonce,
        keccak256(initCode),
        keccak256(op.callData),
        concat([u128(op.verificationGasLimit), u128(op.callGasLimit)]),
        BigInt(concat([u128(op.paymasterVerificationGasLimit), u128(op.paymasterPostOpGasLimit)])),
        op.preVerificationGas,
        concat([u128(op.maxPriorityFeePerGas), u128(op.maxFeePerGas)]),
        BigInt(chainId),
        paymaster,
        window.validUntil,
        window.validAfter,
      ],
    ),
  );
}

export function encodePaymasterData(window: ValidityWindow, signature: Hex): Hex {
  return concat([
    encodeAbiParameters([{ type: "uint48" }, { type: "uint48" }], [window.validUntil, window.validAfter]),
    signature,
  ]);
}

/** The paymaster data that sponsors exactly `op` (whose gas fields are final) within `window`. */
export async function signPaymasterData(
  op: UserOp,
  context: { chainId: number; paymaster: Address; signer: LocalAccount; window: ValidityWindow },
): Promise<Hex> {
  const hash = paymasterHash(op, context.chainId, context.paymaster, context.window);
  const signature = await context.signer.signMessage({ message: { raw: hash } });
  return encodePaymasterData(context.window, signature);
}
