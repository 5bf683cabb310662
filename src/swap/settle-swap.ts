import { paymentIdOf } from "@relay402/client/wire/payment-id";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { swapAuthorizationHash } from "@relay402/client/wire/swap/typed-data";
import type { Address, Hex, TransactionReceipt } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import { createSingleFlight } from "../concurrency/single-flight";
import { relayerOf } from "../config/capabilities";
import type { Async } from "../db/async-port";
import type { SwapSettlement } from "../db/schema";
import { ApiError, PaymentPendingError, withPaymentId } from "../errors";
import { everyRecord, type RecordFilter } from "../lifecycle/orphans";
import type { Logger } from "../logger";
import { createAuthorizationSettlement, type SettlementVerdict } from "../settlement/authorization-settlement";
import { reconcileUnfinished } from "../settlement/reconcile-unfinished";
import type { SwapAuthorization, SwapRoute } from "./swap-authorization";
import { type SwapSettlementStore, swapSettlementOf } from "./swap-store";
import { explainRevert, type SwapVerifyContext, swapCallData, verifySwap } from "./verify-swap";

export type SwapSettleResponse = {
  success: true;
  /** keccak256(abi.encode(chainId, swap relayer, payer, nonce)) (wire/payment-id.ts). */
  paymentId: Hex;
  transaction: Hex;
  network: string;
  payer: string;
  blockNumber: number;
  swap: { sellToken: string; buyToken: string; sellAmount: string; fee: string; buyAmount: string; recipient: string };
};

/** A swap's id: its nonce lives in the swap relayer's nonce space. */
const swapPaymentId = (network: NetworkRuntime, payer: string, nonce: string): Hex =>
  paymentIdOf({
    chainId: network.config.chainId,
    contract: relayerOf(network, "swaps"),
    payer: payer as Address,
    nonce: nonce as Hex,
  });

const swapPending = (network: NetworkRuntime, record: SwapSettlement, transaction: string | null, message: string) =>
  new PaymentPendingError(
    {
      paymentId: swapPaymentId(network, record.payer, record.nonce),
      network: network.name,
      payer: record.payer,
      transaction,
    },
    message,
  );

/** Gas limit of one swapWithAuthorization (a two-hop V3 swap uses about 300k; unused gas is not paid). */
export const SWAP_GAS_LIMIT = 700_000n;

/** How far back a swap's SwapExecuted is looked for: far beyond any receipt timeout on either chain. */
const USE_LOOKBACK_BLOCKS = 5_000n;

type Executed = { transactionHash: Hex; blockNumber: bigint; args: Record<string, unknown> };

/** The relayer's SwapExecuted of (payer, nonce) in [fromBlock, toBlock], if any (the nonce is used once). */
async function findSwap(
  network: NetworkRuntime,
  payer: string,
  nonce: string,
  fromBlock: bigint,
  toBlock: bigint,
): Promise<Executed | null> {
  const logs = await network.client.getContractEvents({
    address: relayerOf(network, "swaps"),
    abi: relayerSwapAbi,
    eventName: "SwapExecuted",
    args: { payer: payer as Address, nonce: nonce as Hex },
    fromBlock: fromBlock < 0n ? 0n : fromBlock,
    toBlock,
  });
  const log = logs.at(-1);
  return log ? { transactionHash: log.transactionHash, blockNumber: log.blockNumber, args: log.args } : null;
}

/**
 * Whether an execution is this record's swap: the struct hash the relayer emits is the one of the authorization
 * it executed, so only the signed swap itself (its minimum, window and route included) matches; a different
 * authorization that reused the nonce never does, however alike its tokens and amounts.
 */
const isSameSwap = (args: Record<string, unknown>, record: SwapSettlement) =>
  String(args.authorizationHash).toLowerCase() === record.authorizationHash;

/**
 * Settles EOA swaps exactly once per (network, payer, nonce), like EOA payments (settle-payment.ts): one promise
 * per key in this process, the table's unique key across processes, and the shared state machine
 * (authorization-settlement.ts on the durable sender). The route is the signed one, which the relayer enforces
 * with the signed minBuyAmount at the recipient.
 */
export function createSwapSettler(deps: {
  /** SQLite's store through asAsync, or PostgreSQL's: every call awaited, the claim one statement. */
  store: Async<SwapSettlementStore>;
  logger: Logger;
  /** `reverted`: the mined receipt, from which the caller tells a price move from the payer's doing. */
  onPayerRevert?(network: NetworkRuntime, payer: string, reverted: TransactionReceipt): Promise<void> | void;
}) {
  const once = createSingleFlight();

  const machine = createAuthorizationSettlement<SwapSettlement>({
    store: deps.store,
    logger: deps.logger,
    event: "swap_settle",
    onPayerRevert: (network, payer, reverted) => deps.onPayerRevert?.(network, payer, reverted),
    chain: {
      async judge(network, record, reverted) {
        const toBlock = reverted?.blockNumber ?? (await network.client.getBlockNumber());
        const use = await findSwap(network, record.payer, record.nonce, toBlock - USE_LOOKBACK_BLOCKS, toBlock);
        if (use && isSameSwap(use.args, record)) return { paid: use };
        if (use) return { usedBy: "nonce used by a different swap" };
        if (!reverted && (await nonceUsed(network, record)))
          return { usedBy: "authorization canceled or used elsewhere" };
        return {};
      },
      nonceUsed: (network, record) => nonceUsed(network, record),
    },
  });

  const nonceUsed = (network: NetworkRuntime, record: SwapSettlement) =>
    network.client.readContract({
      address: relayerOf(network, "swaps"),
      abi: authorizationStateAbi,
      functionName: "authorizationState",
      args: [record.payer as Address, record.nonce as Hex],
    });

  /** The interface's answer to a verdict (its errors carry the recorded swap's id); null: settle it again. */
  async function answer(
    network: NetworkRuntime,
    record: SwapSettlement,
    verdict: SettlementVerdict,
  ): Promise<SwapSettleResponse | null> {
    const paymentId = swapPaymentId(network, record.payer, record.nonce);
    try {
      return await answerOf(network, record, verdict, paymentId);
    } catch (error) {
      throw withPaymentId(error, paymentId);
    }
  }

  async function answerOf(
    network: NetworkRuntime,
    record: SwapSettlement,
    verdict: SettlementVerdict,
    paymentId: Hex,
  ): Promise<SwapSettleResponse | null> {
    switch (verdict.kind) {
      case "settled": {
        const block = BigInt(verdict.blockNumber);
        const executed = await findSwap(network, record.payer, record.nonce, block, block).catch(() => null);
        return {
          success: true,
          paymentId,
          transaction: verdict.txHash as Hex,
          network: network.name,
          payer: record.payer,
          blockNumber: verdict.blockNumber,
          swap: {
            sellToken: record.sellToken,
            buyToken: record.buyToken,
            sellAmount: record.sellAmount,
            fee: record.fee,
            buyAmount: String(executed?.args.buyAmount ?? "0"),
            recipient: record.recipient,
          },
        };
      }
      case "dropped":
        return null;
      case "reverted":
        throw new ApiError("payment_settlement_error", "the swap transaction reverted on-chain", {
          transaction: verdict.txHash,
        });
      case "rejected":
        throw new ApiError("nonce_error", "nonce already used by a different authorization");
      case "would_revert": {
        const [code, message] = verdict.revertData
          ? explainRevert(verdict.revertData)
          : ["payment_verification_error" as const, "the swap would revert"];
        throw new ApiError(code, message, { reason: verdict.reason });
      }
      case "not_sent":
        throw new ApiError("blockchain_error", "could not prepare the swap transaction", { reason: verdict.reason });
      case "refused":
        throw new ApiError("blockchain_error", "the node refused the swap transaction", { reason: verdict.reason });
      case "pending":
        throw swapPending(network, record, verdict.hash, verdict.message);
    }
  }

  async function replay(network: NetworkRuntime, record: SwapSettlement, auth: SwapAuthorization, signature: Hex) {
    const same = record.signature === signature && record.authorizationHash === swapAuthorizationHash(auth);
    if (!same)
      throw new ApiError("nonce_error", "nonce already used by a different authorization", {
        paymentId: swapPaymentId(network, record.payer, record.nonce),
      });
    return answer(network, record, await machine.replay(network, record));
  }

  async function run(
    context: SwapVerifyContext,
    auth: SwapAuthorization,
    signature: Hex,
    route: SwapRoute,
    relayerContract: string,
  ) {
    const { network } = context;
    const key = { network: network.name, payer: auth.from, nonce: auth.nonce };
    const known = await deps.store.find(key);
    if (known) {
      const replayed = await replay(network, known, auth, signature);
      if (replayed) return replayed;
      await deps.store.release(known.id, true);
    }

    const verdict = await verifySwap(context, auth, signature, route, relayerContract);
    if (!verdict.isValid) {
      // Another request (another instance) may have claimed and settled it since the find above: its record answers.
      const claimed = await deps.store.find(key);
      const replayed = claimed && (await replay(network, claimed, auth, signature));
      if (replayed) return replayed;
      throw new ApiError(verdict.invalidReason, verdict.invalidMessage, {
        ...verdict.details,
        ...(verdict.buyAmount !== undefined ? { buyAmount: verdict.buyAmount.toString() } : {}),
      });
    }

    // With several instances, one holding no key lease answers 503 here, before a claim it could not send.
    network.executor.requireKey();
    const paymentId = swapPaymentId(network, auth.from, auth.nonce);
    const { record, created } = await deps.store.claim(swapSettlementOf(network.name, auth, signature, paymentId));
    if (!created) {
      const replayed = await replay(network, record, auth, signature);
      if (replayed) return replayed;
      throw swapPending(network, record, null, "this swap is being settled; retry shortly");
    }
    const sent = await machine.send(network, record, {
      to: relayerOf(network, "swaps"),
      data: swapCallData(auth, signature, route),
      gas: SWAP_GAS_LIMIT,
    });
    const settled = await answer(network, record, sent);
    if (!settled)
      throw new ApiError("blockchain_error", "the swap transaction was dropped; settle again", { paymentId });
    return settled;
  }

  return {
    /**
     * After a restart, finishes the records a previous process left pending or sent (the same machine as
     * settle): one never signed is released while its nonce is unused, else the chain decides; one sent is resumed.
     */
    async reconcile(
      networks: { enabled: readonly string[]; get(name: string): NetworkRuntime },
      which: RecordFilter = everyRecord,
    ): Promise<void> {
      await reconcileUnfinished({
        records: await deps.store.unfinished(),
        networks,
        which,
        logger: deps.logger,
        event: "swap_settlement_reconciled",
        resolve: (network, record) =>
          once(`${record.network}:${record.payer}:${record.nonce}:${record.signature}`, async () => {
            const verdict = await machine.reconcile(network, record);
            return verdict ? answer(network, record, verdict) : null;
          }),
      });
    },
    settle(
      context: SwapVerifyContext,
      auth: SwapAuthorization,
      signature: Hex,
      route: SwapRoute,
      relayerContract: string,
    ): Promise<SwapSettleResponse> {
      const key = `${context.network.name}:${auth.from.toLowerCase()}:${auth.nonce}:${signature}`;
      return once(key, () => run(context, auth, signature, route, relayerContract));
    },
  };
}

const authorizationStateAbi = [
  {
    type: "function",
    name: "authorizationState",
    stateMutability: "view",
    inputs: [
      { name: "from", type: "address" },
      { name: "nonce", type: "bytes32" },
    ],
    outputs: [{ type: "bool" }],
  },
] as const;
