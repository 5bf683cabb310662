import type { Address, Hex } from "viem";
import { assertUserOpEnvelope, refuseUserOp } from "./user-op-batch.js";
import { encodeBatchExecution } from "./wire/execution.js";
import { payBatchCalls } from "./wire/pay-batch.js";
import type { RpcUserOp } from "./wire/user-operation.js";

export type ExpectedUserOp = {
  sender: Address;
  token: Address;
  relayer: Address;
  paymaster: Address;
  entryPoint: Address;
  chainId: number;
  /** Every transfer the UserOp must make, fee included, in order. */
  payments: readonly { to: Address; amount: bigint }[];
};

/**
 * Refuses a UserOp from /wallet/verify or /deploy/wallet/verify that is not what was asked, before the owner
 * signs its hash: the sender, no factory, the paymaster of /config, callData exactly `approve(relayer, total)` +
 * `payBatch(token, recipients, amounts)` of the expected payments (the service's own encoders, not a copy), and a
 * userOpHash that is this UserOp's hash on this chain's EntryPoint (the owner signs the hash, not the fields).
 */
export function assertUserOpIsPayment(userOp: RpcUserOp, hash: Hex, expected: ExpectedUserOp): void {
  const callData = encodeBatchExecution(
    payBatchCalls({ token: expected.token, relayer: expected.relayer, payments: expected.payments }),
  );
  if (userOp.callData.toLowerCase() !== callData.toLowerCase()) {
    throw refuseUserOp("userOp.callData", "does not pay exactly the requested transfers and fee");
  }
  assertUserOpEnvelope(userOp, hash, expected);
}
