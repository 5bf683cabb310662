import type { Address, Hex, TransactionReceipt } from "viem";
import { resumeSend, type SendOutcome, sendDurably } from "../chain/durable-send";
import type { NetworkRuntime } from "../chain/networks";
import { createSingleFlight } from "../concurrency/single-flight";
import type { EoaSettlement } from "../db/schema";
import { ApiError } from "../errors";
import type { Logger } from "../logger";
import type { Authorization } from "./authorization";
import type { PaymentRules } from "./payment-rules";
import { isSameUse, type RelayerPort } from "./relayer-port";
import { type SettlementStore, settlementOf } from "./settlement-store";
import { verifyPayment } from "./verify-payment";

export type SettleResponse = {
  success: true;
  transaction: Hex;
  network: string;
  payer: string;
  blockNumber: number;
  payment: { to: string; amount: string; token: string };
};

export type SettleDeps = {
  store: SettlementStore;
  relayerFor(network: NetworkRuntime): RelayerPort;
  rulesFor(network: NetworkRuntime): PaymentRules;
  now: () => bigint;
  logger: Logger;
  /** Told of every settlement that reverted on-chain through the payer's doing (not a foreign execution). */
  onPayerRevert?(network: NetworkRuntime, payer: Address, reason: string): void;
};

const pendingError = (transaction: string | null, message: string) =>
  new ApiError("blockchain_error", message, { ...(transaction ? { transaction } : {}), status: "pending" });

const revertedError = (transaction: string) =>
  new ApiError("payment_settlement_error", "the settlement transaction reverted on-chain", { transaction });

const nonceTakenError = () => new ApiError("nonce_error", "nonce already used by a different authorization");

/**
 * Settles EOA authorizations exactly once per (network, payer, nonce): concurrent calls in this process
 * share one promise, and the database's unique key covers everything else (other processes, restarts).
 * The transaction goes through the one durable sender (chain/durable-send); this file only maps its
 * outcomes to the settlement record and the answer.
 */
export function createPaymentSettler(deps: SettleDeps) {
  const once = createSingleFlight();

  function responseOf(network: NetworkRuntime, record: EoaSettlement): SettleResponse {
    return {
      success: true,
      transaction: record.txHash as Hex,
      network: network.name,
      payer: record.payer,
      blockNumber: record.blockNumber ?? 0,
      payment: { to: record.recipient, amount: record.amount, token: record.token },
    };
  }

  const paymentOf = (record: EoaSettlement) => ({ token: record.token, to: record.recipient, value: record.amount });

  /**
   * Our transaction did not pay (it reverted, or the nonce was used without it): only the chain can tell
   * what happened. Anyone may submit a signed authorization, so the payment may have been made by another
   * transaction, but it counts only if that transaction paid exactly this authorization.
   */
  async function fromChain(
    network: NetworkRuntime,
    record: EoaSettlement,
    reverted: TransactionReceipt | null,
  ): Promise<SettleResponse | null> {
    const relayer = deps.relayerFor(network);
    let use: Awaited<ReturnType<RelayerPort["findAuthorizationUse"]>>;
    try {
      const toBlock = reverted?.blockNumber ?? (await network.client.getBlockNumber());
      use = await relayer.findAuthorizationUse(record.payer as Address, record.nonce as Hex, toBlock);
      if (!use && !reverted && (await relayer.authorizationState(record.payer as Address, record.nonce as Hex))) {
        // Used but no event in range: canceled by the payer (or used too long ago to see). Never a success.
        return reject(record, "authorization canceled or used elsewhere");
      }
    } catch {
      throw pendingError(reverted?.transactionHash ?? record.txHash, "could not read the settlement's outcome");
    }
    if (use && isSameUse(use, paymentOf(record))) {
      const blockNumber = Number(use.blockNumber);
      deps.store.markOutcome(record.id, { status: "success", txHash: use.transactionHash, blockNumber });
      return responseOf(network, { ...record, txHash: use.transactionHash, blockNumber });
    }
    if (use) return reject(record, "nonce used by a different authorization");
    if (!reverted) {
      // Our transaction was dropped and nobody used the authorization: it may be settled again (null).
      deps.store.markOutcome(record.id, { status: "failed", error: "transaction dropped" });
      return null;
    }
    deps.store.markOutcome(record.id, {
      status: "reverted",
      txHash: reverted.transactionHash,
      blockNumber: Number(reverted.blockNumber),
      error: "reverted",
    });
    deps.onPayerRevert?.(network, record.payer as Address, "settlement reverted");
    throw revertedError(reverted.transactionHash);
  }

  /** The nonce went to something else: stored, so that a repeat answers the same. */
  function reject(record: EoaSettlement, reason: string): never {
    deps.store.markOutcome(record.id, { status: "rejected", error: reason });
    throw nonceTakenError();
  }

  /** Maps what the durable sender reports to the record and the answer; null when it may be settled again. */
  async function conclude(
    network: NetworkRuntime,
    record: EoaSettlement,
    outcome: SendOutcome,
  ): Promise<SettleResponse | null> {
    switch (outcome.status) {
      case "mined": {
        const { receipt } = outcome;
        if (receipt.status !== "success") return fromChain(network, record, receipt);
        const blockNumber = Number(receipt.blockNumber);
        deps.store.markOutcome(record.id, { status: "success", txHash: receipt.transactionHash, blockNumber });
        return responseOf(network, { ...record, txHash: receipt.transactionHash, blockNumber });
      }
      case "superseded":
        return fromChain(network, record, null);
      case "would_revert":
        deps.store.release(record.id);
        throw new ApiError("payment_verification_error", "the transfer would revert", { reason: outcome.reason });
      case "not_sent":
        deps.store.release(record.id);
        throw new ApiError("blockchain_error", "could not prepare the settlement transaction", {
          reason: outcome.reason,
        });
      case "refused":
        // The node refused it, so it can never be mined: the authorization may be settled again.
        deps.store.markOutcome(record.id, { status: "failed", error: outcome.reason });
        throw new ApiError("blockchain_error", "the node refused the settlement transaction", {
          reason: outcome.reason,
        });
      case "unconfirmed":
        deps.logger.warn({
          event: "settle_unconfirmed",
          network: network.name,
          transaction: outcome.hash,
          reason: outcome.reason,
        });
        throw pendingError(outcome.hash, "settlement transaction sent but not yet mined");
    }
  }

  /** A record left sent (a timeout, a crash): resume the transaction and conclude. */
  const resume = async (network: NetworkRuntime, record: EoaSettlement) =>
    conclude(network, record, await resumeSend(network, record, network.config.receiptTimeoutMs));

  /** A settle of an authorization we already know: answer with what happened the first time. */
  async function replay(
    network: NetworkRuntime,
    record: EoaSettlement,
    authorization: Authorization,
  ): Promise<SettleResponse | null> {
    const same =
      record.signature === authorization.signature &&
      record.recipient === authorization.to.toLowerCase() &&
      record.amount === authorization.value.toString() &&
      record.token === authorization.token.toLowerCase();
    if (!same) throw nonceTakenError();
    switch (record.status) {
      case "success":
        return responseOf(network, record);
      case "reverted":
        throw revertedError(record.txHash ?? "");
      case "rejected":
        throw nonceTakenError();
      case "failed":
        return null; // never mined: the authorization may be settled again
      case "sent":
        return resume(network, record); // null once the chain shows it was dropped
      case "pending":
        throw pendingError(null, "this authorization is being settled; retry shortly");
    }
  }

  async function run(network: NetworkRuntime, authorization: Authorization, relayerContract: string) {
    const key = { network: network.name, payer: authorization.from, nonce: authorization.nonce };
    const known = deps.store.find(key);
    if (known) {
      const replayed = await replay(network, known, authorization);
      if (replayed) return replayed;
      deps.store.release(known.id, true);
    }

    const relayer = deps.relayerFor(network);
    const verdict = await verifyPayment(
      {
        relayer,
        relayerAddress: network.config.contracts.relayer,
        now: deps.now,
        rules: deps.rulesFor(network),
      },
      authorization,
      relayerContract,
    );
    if (!verdict.isValid) throw new ApiError(verdict.invalidReason, verdict.invalidMessage, verdict.details);

    const { record, created } = deps.store.claim(settlementOf(network.name, authorization));
    if (!created) {
      const replayed = await replay(network, record, authorization);
      if (replayed) return replayed;
      throw pendingError(null, "this authorization is being settled; retry shortly");
    }

    const outcome = await sendDurably(
      network,
      {
        to: network.config.contracts.relayer,
        data: relayer.transferCallData(authorization),
        gas: BigInt(network.config.settleGasLimit),
      },
      {
        signed: (hash, raw) => deps.store.markSent(record.id, hash, raw),
        replaced: (hash) => deps.store.markReplaced(record.id, hash),
      },
      { simulate: true },
    );
    const settled = await conclude(network, record, outcome);
    if (!settled) throw new ApiError("blockchain_error", "the settlement transaction was dropped; settle again");
    return settled;
  }

  return {
    settle(network: NetworkRuntime, authorization: Authorization, relayerContract: string): Promise<SettleResponse> {
      // The signature is part of the key: a different authorization reusing the nonce must not share this result.
      const key = `${network.name}:${authorization.from.toLowerCase()}:${authorization.nonce}:${authorization.signature}`;
      return once(key, () => run(network, authorization, relayerContract));
    },
    /**
     * Finishes a record a previous process left unfinished (reconciliation at start): one never signed is
     * released while its nonce is unused, else the chain decides; one sent is resumed.
     */
    reconcile(network: NetworkRuntime, record: EoaSettlement): Promise<SettleResponse | null> {
      const key = `${network.name}:${record.payer}:${record.nonce}:${record.signature}`;
      return once(key, async () => {
        if (record.status === "sent") return resume(network, record);
        const used = await deps.relayerFor(network).authorizationState(record.payer as Address, record.nonce as Hex);
        if (!used) {
          deps.store.release(record.id);
          return null;
        }
        return conclude(network, record, { status: "superseded", hash: null });
      });
    },
  };
}

export type PaymentSettler = ReturnType<typeof createPaymentSettler>;
