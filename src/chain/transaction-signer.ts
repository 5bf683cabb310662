import { keccak256 } from "viem";
import { createTurns } from "../concurrency/turns";
import type { ExecutorKey } from "./key-pool";
import type { Fees, PreparedTransaction, TransactionRequest } from "./types";

/** One signature per turn of the event loop, across every network's executor: they share the loop. */
const signingTurn = createTurns();

/** Signs `request` with `key` at `nonce` and `fee`, one signature per turn of the event loop. */
export async function signTransaction(
  chainId: number,
  key: ExecutorKey,
  request: TransactionRequest,
  nonce: number,
  fee: Fees,
): Promise<PreparedTransaction> {
  await signingTurn();
  const raw = await key.account.signTransaction({
    chainId,
    type: "eip1559",
    to: request.to,
    data: request.data,
    value: request.value ?? 0n,
    gas: request.gas,
    nonce,
    ...fee,
  });
  return { hash: keccak256(raw), raw, from: key.account.address, nonce, ...fee, request };
}
