import { type Address, type Hex, isAddressEqual } from "viem";
import { encodeBatchExecution } from "../userops/execution";
import { payBatchCalls } from "../userops/pay-batch";
import { fromRpcUserOp, type RpcUserOp, userOpHash } from "../userops/user-operation";
import { Relay402ClientError } from "./errors";

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
  const mismatch = (field: string, message: string) =>
    new Relay402ClientError("unexpected_response", `the service's UserOp ${message}`, { field: `userOp.${field}` });
  if (!isAddressEqual(userOp.sender, expected.sender)) throw mismatch("sender", `is sent by ${userOp.sender}`);
  if (userOp.factory) throw mismatch("factory", "deploys a wallet");
  if (!isAddressEqual(userOp.paymaster, expected.paymaster)) throw mismatch("paymaster", "names another paymaster");
  const callData = encodeBatchExecution(
    payBatchCalls({ token: expected.token, relayer: expected.relayer, payments: expected.payments }),
  );
  if (userOp.callData.toLowerCase() !== callData.toLowerCase()) {
    throw mismatch("callData", "does not pay exactly the requested transfers and fee");
  }
  if (userOpHash(fromRpcUserOp(userOp), expected.chainId, expected.entryPoint).toLowerCase() !== hash.toLowerCase()) {
    throw new Relay402ClientError("unexpected_response", "the service's userOpHash is not the hash of its UserOp", {
      field: "userOpHash",
    });
  }
}
