import { paymentIdOf } from "@relay402/client/wire/payment-id";
import type { Address, Hex } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import { createSingleFlight } from "../concurrency/single-flight";
import { relayerOf } from "../config/capabilities";
import type { Async } from "../db/async-port";
import type { EoaSettlement } from "../db/schema";
import { ApiError, PaymentPendingError, withPaymentId } from "../errors";
import type { Logger } from "../logger";
import type { Authorization } from "../settlement/authorization";
import { createAuthorizationSettlement, type SettlementVerdict } from "../settlement/authorization-settlement";
import type { PaymentRules } from "../settlement/payment-rules";
import { isSameUse, type RelayerPort } from "../settlement/relayer-port";
import { type RelayerPermit, relayerPermitProblem, transferWithPermitCallData } from "./relayer-permit";
import { type SettlementStore, settlementOf } from "./settlement-store";
import { verifyPayment } from "./verify-payment";

export type SettleResponse = {
  success: true;
  /** keccak256(abi.encode(chainId, relayer, payer, nonce)): the payment's handle (wire/payment-id.ts). */
  paymentId: Hex;
  transaction: Hex;
  network: string;
  payer: string;
  blockNumber: number;
  payment: { to: string; amount: string; token: string };
};

export type SettleDeps = {
  /** The EOA settlement store as an async port: SQLite's through asAsync, or PostgreSQL's. */
  store: Async<SettlementStore>;
  relayerFor(network: NetworkRuntime): RelayerPort;
  rulesFor(network: NetworkRuntime): PaymentRules;
  now: () => bigint;
  logger: Logger;
  /** Told of every settlement that reverted on-chain through the payer's doing (not a foreign execution). */
  onPayerRevert?(network: NetworkRuntime, payer: Address, reason: string): Promise<void> | void;
};

/** The id of an EOA payment: its nonce lives in the relayer's nonce space. */
export const eoaPaymentId = (network: NetworkRuntime, payer: string, nonce: string): Hex =>
  paymentIdOf({
    chainId: network.config.chainId,
    contract: relayerOf(network),
    payer: payer as Address,
    nonce: nonce as Hex,
  });

const pendingError = (
  network: NetworkRuntime,
  record: { payer: string; nonce: string },
  transaction: string | null,
  message: string,
) =>
  new PaymentPendingError(
    {
      paymentId: eoaPaymentId(network, record.payer, record.nonce),
      network: network.name,
      payer: record.payer,
      transaction,
    },
    message,
  );

const revertedError = (transaction: string) =>
  new ApiError("payment_settlement_error", "the settlement transaction reverted on-chain", { transaction });

const nonceTakenError = () => new ApiError("nonce_error", "nonce already used by a different authorization");

/** The answer to a transaction that was never signed: its simulation reverted, or it could not be prepared. */
const unsentError = (verdict: SettlementVerdict) =>
  verdict.kind === "would_revert"
    ? new ApiError("payment_verification_error", "the transfer would revert", { reason: verdict.reason })
    : new ApiError("blockchain_error", "could not prepare the settlement transaction", {
        reason: "reason" in verdict ? verdict.reason : verdict.kind,
      });

/**
 * Settles EOA authorizations exactly once per (network, payer, nonce): the database's unique key decides (the
 * claim is one statement, so other requests, processes and instances awaiting in between change nothing);
 * concurrent calls in this process share one promise only to save the work.
 * The record's state machine is the shared one (authorization-settlement.ts, on the durable sender); this
 * file supplies how the relayer tells a payment and turns verdicts into answers.
 */
export function createPaymentSettler(deps: SettleDeps) {
  const once = createSingleFlight();

  const machine = createAuthorizationSettlement<EoaSettlement>({
    store: deps.store,
    logger: deps.logger,
    event: "settle",
    onPayerRevert: (network, payer) => deps.onPayerRevert?.(network, payer as Address, "settlement reverted"),
    chain: {
      /**
       * Anyone may submit a signed authorization, so the payment may have been made by another transaction,
       * but it counts only if that transaction paid exactly this authorization (the relayer's event says what).
       */
      async judge(network, record, reverted) {
        const relayer = deps.relayerFor(network);
        const toBlock = reverted?.blockNumber ?? (await network.client.getBlockNumber());
        const use = await relayer.findAuthorizationUse(record.payer as Address, record.nonce as Hex, toBlock);
        if (use && isSameUse(use, { token: record.token, to: record.recipient, value: record.amount })) {
          return { paid: use };
        }
        if (use) return { usedBy: "nonce used by a different authorization" };
        // Used but no event in range: canceled by the payer (or used too long ago to see). Never a success.
        if (!reverted && (await relayer.authorizationState(record.payer as Address, record.nonce as Hex))) {
          return { usedBy: "authorization canceled or used elsewhere" };
        }
        return {};
      },
      nonceUsed: (network, record) =>
        deps.relayerFor(network).authorizationState(record.payer as Address, record.nonce as Hex),
    },
  });

  /** The interface's answer to a verdict (its errors carry the recorded payment's id); null: settle it again. */
  function answer(network: NetworkRuntime, record: EoaSettlement, verdict: SettlementVerdict): SettleResponse | null {
    const paymentId = eoaPaymentId(network, record.payer, record.nonce);
    try {
      return answerOf(network, record, verdict, paymentId);
    } catch (error) {
      throw withPaymentId(error, paymentId);
    }
  }

  function answerOf(
    network: NetworkRuntime,
    record: EoaSettlement,
    verdict: SettlementVerdict,
    paymentId: Hex,
  ): SettleResponse | null {
    switch (verdict.kind) {
      case "settled":
        return {
          success: true,
          paymentId,
          transaction: verdict.txHash as Hex,
          network: network.name,
          payer: record.payer,
          blockNumber: verdict.blockNumber,
          payment: { to: record.recipient, amount: record.amount, token: record.token },
        };
      case "dropped":
        return null;
      case "reverted":
        throw revertedError(verdict.txHash);
      case "rejected":
        throw nonceTakenError();
      case "would_revert":
      case "not_sent":
        throw unsentError(verdict);
      case "refused":
        throw new ApiError("blockchain_error", "the node refused the settlement transaction", {
          reason: verdict.reason,
        });
      case "pending":
        throw pendingError(network, record, verdict.hash, verdict.message);
    }
  }

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
    if (!same) throw withPaymentId(nonceTakenError(), eoaPaymentId(network, record.payer, record.nonce));
    return answer(network, record, await machine.replay(network, record));
  }

  async function run(
    network: NetworkRuntime,
    authorization: Authorization,
    relayerContract: string,
    permit?: RelayerPermit,
  ) {
    const key = { network: network.name, payer: authorization.from, nonce: authorization.nonce };
    const known = await deps.store.find(key);
    if (known) {
      const replayed = await replay(network, known, authorization);
      if (replayed) return replayed;
      // Only a record never sent (or never mined) is dropped; the claim below decides who settles it again.
      await deps.store.release(known.id, true);
    }

    const relayer = deps.relayerFor(network);
    const request = (withPermit: RelayerPermit | undefined) => ({
      to: relayerOf(network),
      data: withPermit
        ? transferWithPermitCallData(authorization, withPermit)
        : relayer.transferCallData(authorization),
      gas: BigInt(network.config.settleGasLimit),
    });
    const transaction = request(permit);
    // The checks' eth_call and the transaction's simulation in one JSON-RPC batch (one round trip); a failed check
    // still wins over a failed simulation, as when the simulation came after the checks.
    const [verdict, simulation] = await Promise.all([
      verifyPayment(
        {
          relayer,
          relayerAddress: relayerOf(network),
          now: deps.now,
          rules: deps.rulesFor(network),
        },
        authorization,
        relayerContract,
        permit && (() => relayerPermitProblem(network, deps.rulesFor(network), permit, authorization, deps.now())),
      ),
      machine.simulate(network, transaction),
    ]);
    // A payer that allows the relayer already (its permit submitted by someone else, say) pays without the permit,
    // which would only cost gas; the transaction simulated was the one with it, so the send simulates the other.
    const plain = permit !== undefined && verdict.isValid && !verdict.permitNeeded;
    const unsent = plain ? null : simulation;
    if (!verdict.isValid || unsent) {
      // Another request (another instance) may have claimed and settled it since the find above, which is why the
      // chain now shows its nonce used: its record answers, as it would have had this request come a moment later.
      const claimed = await deps.store.find(key);
      const replayed = claimed && (await replay(network, claimed, authorization));
      if (replayed) return replayed;
      if (!verdict.isValid) throw new ApiError(verdict.invalidReason, verdict.invalidMessage, verdict.details);
      if (unsent) throw unsentError(unsent);
    }

    const paymentId = eoaPaymentId(network, authorization.from, authorization.nonce);
    const { record, created } = await deps.store.claim(settlementOf(network.name, authorization, paymentId));
    if (!created) {
      const replayed = await replay(network, record, authorization);
      if (replayed) return replayed;
      throw pendingError(network, record, null, "this authorization is being settled; retry shortly");
    }

    const sent = await machine.send(network, record, plain ? request(undefined) : transaction, { simulated: !plain });
    const settled = answer(network, record, sent);
    if (!settled)
      throw new ApiError("blockchain_error", "the settlement transaction was dropped; settle again", { paymentId });
    return settled;
  }

  return {
    /** The records of this settler's store left pending or sent (by this process before a restart, or another). */
    unfinished: () => deps.store.unfinished(),
    /** `permit`: the payer's EIP-2612 permit to the relayer, submitted with the payment when its allowance is short. */
    settle(
      network: NetworkRuntime,
      authorization: Authorization,
      relayerContract: string,
      permit?: RelayerPermit,
    ): Promise<SettleResponse> {
      // The signature is part of the key: a different authorization reusing the nonce must not share this result.
      const key = `${network.name}:${authorization.from.toLowerCase()}:${authorization.nonce}:${authorization.signature}`;
      return once(key, () => run(network, authorization, relayerContract, permit));
    },
    /**
     * Finishes a record a previous process left unfinished (reconciliation at start): one never signed is
     * released while its nonce is unused, else the chain decides; one sent is resumed.
     */
    reconcile(network: NetworkRuntime, record: EoaSettlement): Promise<SettleResponse | null> {
      const key = `${network.name}:${record.payer}:${record.nonce}:${record.signature}`;
      return once(key, async () => {
        const verdict = await machine.reconcile(network, record);
        return verdict ? answer(network, record, verdict) : null;
      });
    },
  };
}

export type PaymentSettler = ReturnType<typeof createPaymentSettler>;
