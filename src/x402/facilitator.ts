import {
  type Address,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { resumeSend, type SendOutcome, sendDurably } from "../chain/durable-send";
import type { NetworkRuntime, Networks } from "../chain/networks";
import { createSingleFlight } from "../concurrency/single-flight";
import type { X402Settlement } from "../db/schema";
import { type Logger, shortReason } from "../logger";
import type { PaymentRules } from "../payments/payment-rules";
import { checkX402Payment } from "./check-payment";
import { eip3009TokenAbi } from "./eip3009";
import { x402NetworkOf } from "./networks";
import { X402_REASONS, type X402Refusal } from "./reasons";
import type { X402SettlementStore } from "./settlement-store";
import { parseX402Body, type X402Body, type X402Payment } from "./wire";

export type X402VerifyResponse = { isValid: boolean; invalidReason?: string; invalidMessage?: string; payer?: string };
export type X402SettleResponse = {
  success: boolean;
  errorReason?: string;
  errorMessage?: string;
  payer?: string;
  transaction: string;
  network: string;
  amount?: string;
};

/** How far back a foreign execution of an authorization is looked for. */
const LOOKBACK_BLOCKS = 10_000n;

type Outcome =
  | { kind: "success"; record: X402Settlement }
  | { kind: "refused"; refusal: X402Refusal; message: string; transaction?: string };

const refused = (refusal: X402Refusal, message: string, transaction?: string): Outcome => ({
  kind: "refused",
  refusal,
  message,
  ...(transaction ? { transaction } : {}),
});

/**
 * The x402 facilitator: /verify and /settle for x402 bodies, scheme `exact` with EIP-3009 on the token.
 * Settlement goes through the durable sender with simulation; records are keyed by (network, token, payer,
 * nonce). One payment, one success: only the first settle that sees it settled answers success (the
 * database's conditional update decides, across requests and processes).
 */
export function createX402Facilitator(deps: {
  networks: Networks;
  store: X402SettlementStore;
  rulesFor(network: NetworkRuntime): PaymentRules;
  now: () => bigint;
  logger: Logger;
  onPayerRevert?(network: NetworkRuntime, payer: Address, reason: string): void;
}) {
  const once = createSingleFlight();

  /** The body read, its network resolved and every check run; a refusal otherwise. */
  async function checked(body: X402Body) {
    const parsed = parseX402Body(body);
    if (!parsed.ok) return { ...parsed, payer: undefined };
    const { payment } = parsed;
    const payer = payment.authorization.from;
    const network = x402NetworkOf(deps.networks, payment.version, payment.wireNetwork);
    if (!network) {
      return {
        ok: false as const,
        refusal: "networkNotEnabled" as const,
        message: `x402 is not served on ${payment.wireNetwork}`,
        payer,
      };
    }
    return { ok: true as const, payment, network, payer };
  }

  async function verify(body: X402Body): Promise<X402VerifyResponse> {
    const read = await checked(body);
    if (!read.ok) return invalid(read.refusal, read.message, read.payer);
    const check = await checkX402Payment(read.network, deps.rulesFor(read.network), read.payment, deps.now());
    if (!check.ok) return invalid(check.refusal, check.message, read.payer);
    return { isValid: true, payer: read.payer };
  }

  const invalid = (refusal: X402Refusal, message: string, payer?: string): X402VerifyResponse => ({
    isValid: false,
    invalidReason: X402_REASONS[refusal],
    invalidMessage: message,
    ...(payer ? { payer } : {}),
  });

  async function settle(body: X402Body): Promise<X402SettleResponse> {
    const read = await checked(body);
    const wireNetwork =
      typeof (body.paymentRequirements as { network?: unknown })?.network === "string"
        ? (body.paymentRequirements as { network: string }).network
        : "";
    if (!read.ok) return failure(wireNetwork, read.refusal, read.message, read.payer);
    const { payment, network } = read;
    const auth = payment.authorization;
    const key = `${network.name}:${auth.token}:${auth.from}:${auth.nonce}:${auth.signature}`.toLowerCase();
    const outcome = await once(key, () => run(network, payment));
    if (outcome.kind === "refused")
      return failure(payment.wireNetwork, outcome.refusal, outcome.message, auth.from, outcome.transaction);
    // Concurrent callers share the outcome; the database lets exactly one of them answer success.
    if (!deps.store.takeSuccessAnswer(outcome.record.id))
      return failure(
        payment.wireNetwork,
        "nonceUsed",
        "this payment was already settled for another request",
        auth.from,
        outcome.record.txHash ?? undefined,
      );
    return {
      success: true,
      payer: auth.from,
      transaction: outcome.record.txHash ?? "",
      network: payment.wireNetwork,
      amount: auth.value.toString(),
    };
  }

  const failure = (
    network: string,
    refusal: X402Refusal,
    message: string,
    payer?: string,
    transaction?: string,
  ): X402SettleResponse => ({
    success: false,
    errorReason: X402_REASONS[refusal],
    errorMessage: message,
    ...(payer ? { payer } : {}),
    transaction: transaction ?? "",
    network,
  });

  const sameAuthorization = (record: X402Settlement, payment: X402Payment) =>
    record.signature === payment.authorization.signature &&
    record.recipient === payment.authorization.to.toLowerCase() &&
    record.amount === payment.authorization.value.toString();

  async function run(network: NetworkRuntime, payment: X402Payment): Promise<Outcome> {
    const auth = payment.authorization;
    const key = { network: network.name, contract: auth.token, payer: auth.from, nonce: auth.nonce };
    const known = deps.store.find(key);
    if (known) {
      const replayed = await replay(network, known, payment);
      if (replayed) return replayed;
      deps.store.release(known.id);
    }

    const check = await checkX402Payment(network, deps.rulesFor(network), payment, deps.now());
    if (!check.ok) return refused(check.refusal, check.message);

    const { record, created } = deps.store.claim({
      ...key,
      recipient: auth.to,
      amount: auth.value.toString(),
      validAfter: Number(auth.validAfter),
      validBefore: Number(auth.validBefore),
      signature: auth.signature,
    });
    if (!created) return refused("nonceUsed", "this payment is being settled for another request");

    const outcome = await sendDurably(
      network,
      {
        to: auth.token,
        data: encodeFunctionData({
          abi: eip3009TokenAbi,
          functionName: "transferWithAuthorization",
          args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, auth.signature],
        }),
        gas: BigInt(network.config.settleGasLimit),
      },
      {
        signed: (hash, raw) => deps.store.markSent(record.id, hash, raw),
        replaced: (hash) => deps.store.markReplaced(record.id, hash),
      },
      { simulate: true },
    );
    return (
      (await conclude(network, record, outcome)) ??
      refused("transactionFailed", "the settlement transaction was dropped; settle again")
    );
  }

  /** A settle of a payment already known: a repeat never answers success twice (takeSuccessAnswer decides). */
  async function replay(
    network: NetworkRuntime,
    record: X402Settlement,
    payment: X402Payment,
  ): Promise<Outcome | null> {
    if (!sameAuthorization(record, payment))
      return refused("nonceUsed", "the nonce belongs to a different authorization");
    switch (record.status) {
      case "success":
        return { kind: "success", record };
      case "reverted":
        return refused("transactionFailed", "the settlement transaction reverted on-chain", record.txHash ?? undefined);
      case "rejected":
        return refused("nonceUsed", record.error ?? "the nonce was used by a different transfer");
      case "failed":
        return null;
      case "sent":
        return conclude(network, record, await resumeSend(network, record, network.config.receiptTimeoutMs));
      case "pending":
        return refused("nonceUsed", "this payment is being settled for another request");
    }
  }

  async function conclude(
    network: NetworkRuntime,
    record: X402Settlement,
    outcome: SendOutcome,
  ): Promise<Outcome | null> {
    switch (outcome.status) {
      case "mined": {
        const { receipt } = outcome;
        if (receipt.status !== "success") return fromChain(network, record, receipt);
        const blockNumber = Number(receipt.blockNumber);
        deps.store.markOutcome(record.id, { status: "success", txHash: receipt.transactionHash, blockNumber });
        return {
          kind: "success",
          record: { ...record, status: "success", txHash: receipt.transactionHash, blockNumber },
        };
      }
      case "superseded":
        return fromChain(network, record, null);
      case "would_revert":
        deps.store.release(record.id);
        return refused("simulationFailed", "the transfer would revert");
      case "not_sent":
        deps.store.release(record.id);
        return refused("unexpectedSettle", "could not prepare the settlement transaction");
      case "refused":
        deps.store.markOutcome(record.id, { status: "failed", error: outcome.reason });
        return refused("transactionFailed", "the node refused the settlement transaction");
      case "unconfirmed":
        deps.logger.warn({
          event: "x402_settle_unconfirmed",
          network: network.name,
          transaction: outcome.hash,
          reason: outcome.reason,
        });
        return refused("settlementPending", "sent but not yet mined; settle again for the final result", outcome.hash);
    }
  }

  /**
   * Our transaction did not pay: the nonce may have been used by someone else's transaction (anyone may
   * submit a signed authorization). That counts only if its transaction moved exactly this payment:
   * Transfer(from, to, value) on the token.
   */
  async function fromChain(
    network: NetworkRuntime,
    record: X402Settlement,
    reverted: TransactionReceipt | null,
  ): Promise<Outcome | null> {
    const token = record.contract as Address;
    let foreign: TransactionReceipt | null = null;
    let used: boolean;
    try {
      used = await network.client.readContract({
        address: token,
        abi: eip3009TokenAbi,
        functionName: "authorizationState",
        args: [record.payer as Address, record.nonce as Hex],
      });
      if (used) {
        const toBlock = reverted?.blockNumber ?? (await network.client.getBlockNumber());
        const logs = await network.client.getContractEvents({
          address: token,
          abi: eip3009TokenAbi,
          eventName: "AuthorizationUsed",
          args: { authorizer: record.payer as Address, nonce: record.nonce as Hex },
          fromBlock: toBlock > LOOKBACK_BLOCKS ? toBlock - LOOKBACK_BLOCKS : 0n,
          toBlock,
        });
        const hash = logs[0]?.transactionHash;
        if (hash) foreign = await network.client.getTransactionReceipt({ hash });
      }
    } catch {
      return refused(
        "settlementPending",
        "could not read the settlement's outcome; settle again",
        reverted?.transactionHash ?? record.txHash ?? undefined,
      );
    }
    if (foreign) {
      const paid = parseEventLogs({ abi: eip3009TokenAbi, eventName: "Transfer", logs: foreign.logs }).some(
        (log) =>
          isAddressEqual(log.address, token) &&
          isAddressEqual(log.args.from, record.payer as Address) &&
          isAddressEqual(log.args.to, record.recipient as Address) &&
          log.args.value === BigInt(record.amount),
      );
      if (paid) {
        const blockNumber = Number(foreign.blockNumber);
        deps.store.markOutcome(record.id, { status: "success", txHash: foreign.transactionHash, blockNumber });
        return {
          kind: "success",
          record: { ...record, status: "success", txHash: foreign.transactionHash, blockNumber },
        };
      }
    }
    if (used) {
      deps.store.markOutcome(record.id, { status: "rejected", error: "nonce used or canceled without this transfer" });
      return refused("nonceUsed", "the nonce was used or canceled without this transfer");
    }
    if (!reverted) {
      deps.store.markOutcome(record.id, { status: "failed", error: "transaction dropped" });
      return null;
    }
    deps.store.markOutcome(record.id, {
      status: "reverted",
      txHash: reverted.transactionHash,
      blockNumber: Number(reverted.blockNumber),
      error: "reverted",
    });
    deps.onPayerRevert?.(network, record.payer as Address, "x402 settlement reverted");
    return refused("transactionFailed", "the settlement transaction reverted on-chain", reverted.transactionHash);
  }

  /**
   * After a restart, finishes the records the previous process left: one sent is resumed, one never signed is
   * released while its nonce is unused, else the chain decides. A later settle then answers from the record.
   */
  async function reconcile(): Promise<void> {
    for (const record of deps.store.unfinished()) {
      if (!deps.networks.enabled.includes(record.network as never)) continue;
      const network = deps.networks.get(record.network);
      const key = `${record.network}:${record.contract}:${record.payer}:${record.nonce}:${record.signature}`;
      try {
        const outcome = await once(key, () => resolveUnfinished(network, record));
        deps.logger.info({ event: "x402_settlement_reconciled", id: record.id, outcome: outcome?.kind ?? "released" });
      } catch (error) {
        deps.logger.warn({
          event: "x402_settlement_reconciled",
          id: record.id,
          outcome: "unresolved",
          reason: shortReason(error),
        });
      }
    }
  }

  async function resolveUnfinished(network: NetworkRuntime, record: X402Settlement): Promise<Outcome | null> {
    if (record.status === "sent") return conclude(network, record, await resumeSend(network, record));
    const used = await network.client.readContract({
      address: record.contract as Address,
      abi: eip3009TokenAbi,
      functionName: "authorizationState",
      args: [record.payer as Address, record.nonce as Hex],
    });
    if (!used) {
      deps.store.release(record.id);
      return null;
    }
    return fromChain(network, record, null);
  }

  return { verify, settle, reconcile };
}

export type X402Facilitator = ReturnType<typeof createX402Facilitator>;
