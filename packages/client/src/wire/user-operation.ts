import { type Address, type Hex, numberToHex } from "viem";
import { getUserOperationHash } from "viem/account-abstraction";

/** An ERC-4337 v0.7 UserOp in its unpacked form (the form bundlers and our API speak). */
export type UserOp = {
  sender: Address;
  nonce: bigint;
  factory?: Address;
  factoryData?: Hex;
  callData: Hex;
  callGasLimit: bigint;
  verificationGasLimit: bigint;
  preVerificationGas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  paymaster: Address;
  paymasterVerificationGasLimit: bigint;
  paymasterPostOpGasLimit: bigint;
  paymasterData: Hex;
  signature: Hex;
};

/** The wire form: every field a string, quantities as hex (the interface's UserOp). */
export type RpcUserOp = {
  sender: Address;
  nonce: Hex;
  callData: Hex;
  callGasLimit: Hex;
  verificationGasLimit: Hex;
  preVerificationGas: Hex;
  maxFeePerGas: Hex;
  maxPriorityFeePerGas: Hex;
  paymaster: Address;
  paymasterVerificationGasLimit: Hex;
  paymasterPostOpGasLimit: Hex;
  paymasterData: Hex;
  signature: Hex;
  factory?: Address;
  factoryData?: Hex;
};

/** The UserOp fields that are quantities (hex on the wire). */
export const USER_OP_QUANTITY_FIELDS = [
  "nonce",
  "callGasLimit",
  "verificationGasLimit",
  "preVerificationGas",
  "maxFeePerGas",
  "maxPriorityFeePerGas",
  "paymasterVerificationGasLimit",
  "paymasterPostOpGasLimit",
] as const;

export function toRpcUserOp(op: UserOp): RpcUserOp {
  const rpc = { ...op } as unknown as Record<string, unknown>;
  for (const field of USER_OP_QUANTITY_FIELDS) rpc[field] = numberToHex(op[field]);
  if (!op.factory) {
    delete rpc.factory;
    delete rpc.factoryData;
  }
  return rpc as RpcUserOp;
}

export function fromRpcUserOp(rpc: RpcUserOp): UserOp {
  const op = { ...rpc } as unknown as Record<string, unknown>;
  for (const field of USER_OP_QUANTITY_FIELDS) op[field] = BigInt(rpc[field]);
  return op as UserOp;
}

export function userOpHash(op: UserOp, chainId: number, entryPoint: Address): Hex {
  return getUserOperationHash({
    chainId,
    entryPointAddress: entryPoint,
    entryPointVersion: "0.7",
    userOperation: op,
  });
}
