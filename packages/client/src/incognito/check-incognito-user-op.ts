import { type Address, decodeFunctionData, encodeFunctionData, type Hex, isAddressEqual } from "viem";
import { assertUserOpEnvelope, decodeBatch, refuseUserOp, type UserOpEnvelope } from "../user-op-batch.js";
import { erc20Abi } from "../wire/abis.js";
import { type Call, encodeBatchExecution } from "../wire/execution.js";
import { privacyPoolAbi } from "../wire/incognito/pool-abi.js";
import type { SolidityProof } from "../wire/incognito/proof.js";
import { proofCallArgs } from "../wire/incognito/proof.js";
import type { RpcUserOp } from "../wire/user-operation.js";

export { decodeBatch };

/** What the client asked for, and where (from /config): the UserOp must be exactly this. */
type Common = UserOpEnvelope & { pool: Address };

export type ExpectedShield = Common & {
  token: Address;
  amount: bigint;
  precommitment: bigint;
  feeRecipient: Address;
  /** The wallet payment fee of /config (`max(minFee, ceil(amount × feeBps / 10000))`). */
  fee: bigint;
};

export type ExpectedUnshield = Common & {
  token: Address;
  withdrawAmount: bigint;
  recipient: Address;
  feeRecipient: Address;
  fee: bigint;
  root: bigint;
  nullifierHash: bigint;
  changeCommitment: bigint;
  proof: SolidityProof;
};

const refuse = refuseUserOp;

/** The shield batch the client expects, built with the same encoders as the service. */
export function shieldCalls(expected: Omit<ExpectedShield, keyof Common> & { pool: Address }): Call[] {
  const { token, amount, precommitment, pool, feeRecipient, fee } = expected;
  const calls: Call[] = [
    { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [pool, amount] }) },
    {
      to: pool,
      data: encodeFunctionData({ abi: privacyPoolAbi, functionName: "shield", args: [token, amount, precommitment] }),
    },
  ];
  if (fee > 0n) {
    calls.push({
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [feeRecipient, fee] }),
    });
  }
  return calls;
}

/**
 * Refuses a shield UserOp that is not the client's own before the owner signs it. A service that put its own
 * precommitment in the `shield` call would own the deposit (it alone would know the note's secrets); another
 * token, amount, pool or fee would spend the wallet's money otherwise than asked. The field at fault is named
 * (`details.field`, e.g. `incognitoData.precommitment`), then the whole callData must be byte for byte the batch
 * the client builds itself.
 */
export function assertUserOpIsShield(userOp: RpcUserOp, hash: Hex, expected: ExpectedShield): void {
  const calls = decodeBatch(userOp.callData);
  if (!calls) throw refuse("userOp.callData", "is not a batch execution of the wallet");
  const shield = calls.find((call) => isAddressEqual(call.to, expected.pool));
  if (!shield) throw refuse("incognitoData.pool", "does not call the privacy pool of /config");
  let args: readonly unknown[] | undefined;
  try {
    const decoded = decodeFunctionData({ abi: privacyPoolAbi, data: shield.data });
    if (decoded.functionName === "shield") args = decoded.args;
  } catch {}
  if (!args) throw refuse("userOp.callData", "calls the pool with something other than shield");
  const [token, amount, precommitment] = args as [Address, bigint, bigint];
  if (!isAddressEqual(token, expected.token)) throw refuse("incognitoData.token", `shields token ${token}`);
  if (amount !== expected.amount) throw refuse("incognitoData.amount", `shields ${amount}, not ${expected.amount}`);
  if (precommitment !== expected.precommitment) {
    throw refuse("incognitoData.precommitment", "shields a note whose precommitment is not the client's own");
  }
  const want = encodeBatchExecution(shieldCalls(expected));
  if (userOp.callData.toLowerCase() !== want.toLowerCase()) {
    throw refuse(
      "userOp.callData",
      `is not exactly approve(pool, amount), shield(token, amount, precommitment) and the fee ${expected.fee} to ${expected.feeRecipient}`,
    );
  }
  assertUserOpEnvelope(userOp, hash, expected);
}

/** The unshield call the client expects (the proof binds every public value but the sender). */
export function unshieldCall(expected: Omit<ExpectedUnshield, keyof Common> & { pool: Address }): Call {
  const { proof } = expected;
  return {
    to: expected.pool,
    data: encodeFunctionData({
      abi: privacyPoolAbi,
      functionName: "unshield",
      args: [
        proofCallArgs(proof),
        expected.root,
        expected.nullifierHash,
        expected.token,
        expected.withdrawAmount,
        expected.recipient,
        expected.feeRecipient,
        expected.fee,
        expected.changeCommitment,
      ],
    }),
  };
}

/**
 * Refuses an unshield UserOp that is not exactly one `unshield` call with the client's proof and public values.
 * The proof already binds recipient, fee and change, so a changed call would revert; refusing it here keeps the
 * wallet from signing anything else (another call in the batch, another pool).
 */
export function assertUserOpIsUnshield(userOp: RpcUserOp, hash: Hex, expected: ExpectedUnshield): void {
  const want = encodeBatchExecution([unshieldCall(expected)]);
  if (userOp.callData.toLowerCase() !== want.toLowerCase()) {
    throw refuse("userOp.callData", "is not exactly the pool's unshield with the client's proof and public values");
  }
  assertUserOpEnvelope(userOp, hash, expected);
}
