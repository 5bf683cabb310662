import { type Address, type Hex, hexToBytes, parseTransaction } from "viem";
import { BroadcastRejectedError } from "../chain/errors";
import type { NetworkRuntime } from "../chain/networks";
import { shortReason } from "../logger";
import { type ApproveRefusal, refuseApprove, type SignedApprove } from "./signed-approve";

// What makes a node refuse a signed approve whatever its sender holds: checked before anybody is funded, since a
// funding whose approve the node refuses stays with the payer and its record would wait for an approve that never
// comes (docs/security.md "Funded approves the node would refuse"). The price bounds of a funding sit beside these.

/** secp256k1's group order: a signature's s above half of it is the malleable twin nodes refuse (EIP-2). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const TX_BASE_GAS = 21_000n;

/**
 * The least gas a node accepts for a call carrying `data` and no access list: the base cost plus calldata
 * (4 per zero byte, 16 per other byte), or EIP-7623's floor (10 per token, a zero byte one token, another four)
 * where that is higher, as it is for an approve since Prague (BSC and Base both run it).
 */
export function intrinsicGas(data: Hex): bigint {
  let zeros = 0n;
  let others = 0n;
  for (const byte of hexToBytes(data)) {
    if (byte === 0) zeros += 1n;
    else others += 1n;
  }
  const standard = TX_BASE_GAS + 4n * zeros + 16n * others;
  const floor = TX_BASE_GAS + 10n * (zeros + 4n * others);
  return standard > floor ? standard : floor;
}

/** The checks of the signed bytes alone: enough gas to be accepted at all, and a signature no node calls malleable. */
export function unacceptableApprove(approve: SignedApprove): ApproveRefusal | null {
  const parsed = parseTransaction(approve.raw);
  const least = intrinsicGas(parsed.data ?? "0x");
  if (approve.gas < least)
    return refuseApprove(
      "gas_too_low",
      `the approve's gas limit is under its intrinsic gas (${least}): no node takes it`,
    );
  if (parsed.s !== undefined && BigInt(parsed.s) > SECP256K1_N / 2n)
    return refuseApprove("signature", "the approve's signature has a high s (EIP-2): nodes refuse it; sign it again");
  return null;
}

/**
 * A payer whose pending nonce is ahead of its mined one has a transaction waiting in the pool: a funding would pay
 * for that one first, and the approve behind it would never be mined.
 */
export async function queuedBehind(
  network: NetworkRuntime,
  payer: Address,
  pendingNonce: number,
): Promise<ApproveRefusal | null> {
  let mined: number;
  try {
    mined = await network.client.getTransactionCount({ address: payer, blockTag: "latest" });
  } catch (error) {
    return refuseApprove("unreadable", `could not read the payer's nonce: ${shortReason(error)}`);
  }
  if (pendingNonce <= mined) return null;
  return refuseApprove(
    "nonce",
    `the payer has ${pendingNonce - mined} transaction(s) waiting in the pool (mined nonce ${mined}, pending ${pendingNonce}): the approve would wait behind them`,
  );
}

/**
 * The node's words for a transaction that only lacks its sender's coins: what an unfunded approve must get (geth and
 * its forks, reth, erigon: "insufficient funds for gas * price + value"; Nethermind: "InsufficientFunds").
 */
export const INSUFFICIENT_FUNDS = /insufficient[ _]?funds/i;

/**
 * The node's own verdict on the approve before it is funded: a node validates a raw transaction's fields first
 * (intrinsic gas, signature, the pool's minimum tip: "transaction underpriced") and the sender's balance after,
 * so an approve whose payer cannot pay it must come back "insufficient funds". Any other refusal is one a
 * funding would not lift. Accepted (the payer could pay after all, or was paid meanwhile): nothing to refuse.
 */
export async function nodeVerdict(network: NetworkRuntime, approve: SignedApprove): Promise<ApproveRefusal | null> {
  try {
    await network.executor.rebroadcast(approve.raw);
    return null;
  } catch (error) {
    if (!(error instanceof BroadcastRejectedError))
      return refuseApprove("unreadable", `could not ask the node about the approve: ${shortReason(error)}`);
    const words = error.details ?? error.message;
    if (INSUFFICIENT_FUNDS.test(words)) return null;
    return refuseApprove(
      "node_refused",
      `the node refuses the approve whatever the payer holds: ${shortReason(words)}`,
    );
  }
}
