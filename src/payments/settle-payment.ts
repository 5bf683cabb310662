import type { Hex, TransactionReceipt } from "viem";
import { BroadcastRejectedError, ReceiptTimeoutError } from "../chain/errors";
import type { NetworkRuntime } from "../chain/networks";
import { createSingleFlight } from "../concurrency/single-flight";
import type { EoaSettlement } from "../db/schema";
import { ApiError } from "../http/errors";
import { type Logger, shortReason } from "../logger";
import type { Authorization } from "./authorization";
import type { RelayerPort } from "./relayer-port";
import { settlementReceipt } from "./settlement-receipt";
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
  now: () => bigint;
  logger: Logger;
};

const pendingError = (transaction: string | null, message: string) =>
  new ApiError("blockchain_error", message, { ...(transaction ? { transaction } : {}), status: "pending" });

/**
 * Settles EOA authorizations exactly once per (network, payer, nonce): concurrent calls in this process
 * share one promise, and the database's unique key covers everything else (other processes, restarts).
 * The record is written before the transaction is signed and its hash before it is broadcast.
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

  async function finish(
    network: NetworkRuntime,
    record: EoaSettlement,
    receipt: TransactionReceipt,
  ): Promise<SettleResponse> {
    // Our transaction reverted, but anyone may submit a signed authorization: if another transaction
    // executed it, the payment happened, and that transaction is the answer.
    const mined =
      receipt.status === "success"
        ? { transactionHash: receipt.transactionHash, blockNumber: receipt.blockNumber }
        : await deps
            .relayerFor(network)
            .findAuthorizationUse(record.payer as Hex, record.nonce as Hex, receipt.blockNumber)
            .catch(() => null);
    if (mined) {
      deps.store.markOutcome(record.id, {
        status: "success",
        txHash: mined.transactionHash,
        blockNumber: Number(mined.blockNumber),
      });
      return responseOf(network, { ...record, txHash: mined.transactionHash, blockNumber: Number(mined.blockNumber) });
    }
    deps.store.markOutcome(record.id, {
      status: "reverted",
      txHash: receipt.transactionHash,
      blockNumber: Number(receipt.blockNumber),
      error: "reverted",
    });
    throw revertedError(receipt.transactionHash);
  }

  const revertedError = (transaction: string) =>
    new ApiError("payment_settlement_error", "the settlement transaction reverted on-chain", { transaction });

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
    if (!same) throw new ApiError("nonce_error", "nonce already used by a different authorization");
    switch (record.status) {
      case "success":
        return responseOf(network, record);
      case "reverted":
        throw revertedError(record.txHash ?? "");
      case "failed":
        return null; // never mined: the authorization may be settled again
      case "pending":
        throw pendingError(null, "this authorization is being settled; retry shortly");
      case "sent": {
        const receipt = await settlementReceipt(network, record, network.config.receiptTimeoutMs);
        if (!receipt) throw pendingError(record.txHash, "settlement transaction sent but not yet mined");
        return finish(network, record, receipt);
      }
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
      { relayer, relayerAddress: network.config.contracts.relayer as Hex, now: deps.now },
      authorization,
      relayerContract,
    );
    if (!verdict.isValid) throw new ApiError(verdict.invalidReason, verdict.invalidMessage);

    const { record, created } = deps.store.claim(settlementOf(network.name, authorization));
    if (!created) {
      const replayed = await replay(network, record, authorization);
      if (replayed) return replayed;
      throw pendingError(null, "this authorization is being settled; retry shortly");
    }

    let prepared: Awaited<ReturnType<NetworkRuntime["executor"]["prepare"]>>;
    try {
      prepared = await network.executor.prepare({
        to: network.config.contracts.relayer as Hex,
        data: relayer.transferCallData(authorization),
        gas: BigInt(network.config.settleGasLimit),
      });
    } catch (error) {
      deps.store.release(record.id);
      throw new ApiError("blockchain_error", "could not prepare the settlement transaction", {
        reason: shortReason(error),
      });
    }
    deps.store.markSent(record.id, prepared.hash, prepared.raw);

    try {
      const receipt = await network.executor.send(prepared, {
        onReplaced: (hash) => deps.store.markReplaced(record.id, hash),
      });
      return finish(network, { ...record, txHash: receipt.transactionHash }, receipt);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof BroadcastRejectedError) {
        // The node refused it, so it can never be mined: the authorization may be settled again.
        deps.store.markOutcome(record.id, { status: "failed", error: shortReason(error) });
        throw new ApiError("blockchain_error", "the node refused the settlement transaction", {
          reason: shortReason(error),
        });
      }
      const hash = error instanceof ReceiptTimeoutError ? error.hash : prepared.hash;
      deps.logger.warn({
        event: "settle_unconfirmed",
        network: network.name,
        transaction: hash,
        reason: shortReason(error),
      });
      throw pendingError(
        hash,
        error instanceof ReceiptTimeoutError ? "no receipt in time" : "RPC failure while sending",
      );
    }
  }

  return {
    settle(network: NetworkRuntime, authorization: Authorization, relayerContract: string): Promise<SettleResponse> {
      // The signature is part of the key: a different authorization reusing the nonce must not share this result.
      const key = `${network.name}:${authorization.from.toLowerCase()}:${authorization.nonce}:${authorization.signature}`;
      return once(key, () => run(network, authorization, relayerContract));
    },
  };
}

export type PaymentSettler = ReturnType<typeof createPaymentSettler>;
