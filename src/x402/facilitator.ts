import type { Address, Hex } from "viem";
import type { NetworkRuntime, Networks } from "../chain/networks";
import type { TransactionRequest } from "../chain/types";
import { createSingleFlight } from "../concurrency/single-flight";
import type { Async } from "../db/async-port";
import type { X402Settlement } from "../db/schema";
import type { RecordFilter } from "../lifecycle/orphans";
import type { Logger } from "../logger";
import { createAuthorizationSettlement, type SettlementVerdict } from "../settlement/authorization-settlement";
import type { PaymentRules } from "../settlement/payment-rules";
import { reconcileUnfinished } from "../settlement/reconcile-unfinished";
import { checkX402Payment, passesLocalChecks } from "./check-payment";
import { eip3009AuthorizationUsed, judgeEip3009 } from "./eip3009-judge";
import { x402AssetsOf, x402NetworkOf } from "./networks";
import {
  IDENTIFIER_CONFLICT,
  type PaymentIdentifier,
  paymentIdentifierOf,
  paymentIdentifiers,
} from "./payment-identifier";
import { PERMIT2 } from "./permit2";
import { checkPermit2Payment, judgePermit2, permit2NonceUsed } from "./permit2-payment";
import { X402_REASONS, type X402Refusal } from "./reasons";
import type { X402SettlementStore } from "./settlement-store";
import { settlementOf, x402PaymentId } from "./settlement-terms";
import { parseX402Body, payerOf, type X402Body, type X402Payment } from "./wire";

export type X402VerifyResponse = { isValid: boolean; invalidReason?: string; invalidMessage?: string; payer?: string };
export type X402SettleResponse = {
  success: boolean;
  errorReason?: string;
  errorMessage?: string;
  payer?: string;
  transaction: string;
  network: string;
  amount?: string;
  /** x402's clients drop unknown top-level fields, so the payment's handle travels in `extra`. */
  extra?: { paymentId: Hex };
};

type Outcome =
  | { kind: "success"; record: X402Settlement }
  | { kind: "refused"; refusal: X402Refusal; message: string; transaction?: string; inFlight?: true }
  | { kind: "conflict" };

const refused = (refusal: X402Refusal, message: string, transaction?: string): Outcome => ({
  kind: "refused",
  refusal,
  message,
  ...(transaction ? { transaction } : {}),
});
/** The payment is claimed by another settle, here or on another instance, and not concluded yet. */
const inFlight = (): Outcome => ({
  kind: "refused",
  refusal: "nonceUsed",
  message: "this payment is being settled for another request",
  inFlight: true,
});
/** How often a settle under a payment identifier looks again at the same payment settled by another request. */
const IN_FLIGHT_POLL_MS = 100;

type Method = X402Payment["method"];

/** A record of a Permit2 payment: its nonce space is Permit2's. */
const isPermit2Record = (record: X402Settlement) => record.contract === PERMIT2.toLowerCase();

/** The method's refusal for a nonce the chain shows used (the one-success rule answers nonceUsed for both). */
const nonceGone = (method: Method): X402Refusal => (method === "permit2" ? "permit2Nonce" : "nonceUsed");

/**
 * The x402 facilitator: /verify and /settle for x402 bodies, scheme `exact` with EIP-3009 on the token or
 * Permit2 through x402's exact proxy. Settlement goes through the durable sender with simulation; records are
 * keyed by (network, token or Permit2, payer, nonce). One payment, one success: only the first settle that
 * sees it settled answers success (the database's conditional update decides, across requests and processes),
 * besides the settles under x402's payment identifier bound to that body (src/x402/payment-identifier.ts).
 */
export function createX402Facilitator(deps: {
  networks: Networks;
  /** SQLite's store through asAsync, or PostgreSQL's: every call awaited, the claim one statement. */
  store: Async<X402SettlementStore>;
  rulesFor(network: NetworkRuntime): PaymentRules;
  now: () => bigint;
  logger: Logger;
  onPayerRevert?(network: NetworkRuntime, payer: Address, reason: string): Promise<void> | void;
}) {
  const once = createSingleFlight();
  const identifiers = paymentIdentifiers(deps.store);

  const machine = createAuthorizationSettlement<X402Settlement>({
    store: deps.store,
    logger: deps.logger,
    event: "x402_settle",
    onPayerRevert: (network, payer) => deps.onPayerRevert?.(network, payer as Address, "x402 settlement reverted"),
    chain: {
      nonceUsed: (network, record) =>
        isPermit2Record(record) ? permit2NonceUsed(network, record) : eip3009AuthorizationUsed(network, record),
      /** Anyone may submit a signed authorization: another transaction counts only if it moved exactly this payment. */
      judge: (network, record, reverted) =>
        isPermit2Record(record) ? judgePermit2(network, record, reverted) : judgeEip3009(network, record, reverted),
    },
  });

  /** The body read, its network resolved and every check run; a refusal otherwise. */
  async function checked(body: X402Body) {
    const parsed = parseX402Body(body);
    if (!parsed.ok) return { ...parsed, payer: undefined };
    const { payment } = parsed;
    const payer = payerOf(payment);
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
    const named = paymentIdentifierOf(body);
    if (!named.ok) return invalid("malformed", named.message, read.payer);
    const bound = named.identifier ? await identifiers.boundTo(read.payer, named.identifier) : "nothing";
    if (bound !== "nothing")
      return bound === "this"
        ? { isValid: true, payer: read.payer }
        : invalid("paymentIdentifierConflict", IDENTIFIER_CONFLICT, read.payer);
    const check = await checkPayment(read.network, read.payment);
    if (!check.ok) return invalid(check.refusal, check.message, read.payer);
    return { isValid: true, payer: read.payer };
  }

  const checkPayment = (network: NetworkRuntime, payment: X402Payment) =>
    payment.method === "eip3009"
      ? checkX402Payment(network, deps.rulesFor(network), payment, deps.now())
      : checkPermit2Payment(network, deps.rulesFor(network), payment, deps.now());

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
    // Every answer to a readable payment names it, whatever its outcome; its record is claimed under the same id.
    const paymentId = x402PaymentId(read.network, read.payment);
    return { ...(await settleRead(body, read, paymentId)), extra: { paymentId } };
  }

  async function settleRead(
    body: X402Body,
    { payment, network, payer }: { payment: X402Payment; network: NetworkRuntime; payer: string },
    paymentId: Hex,
  ): Promise<X402SettleResponse> {
    const named = paymentIdentifierOf(body);
    if (!named.ok) return failure(payment.wireNetwork, "malformed", named.message, payer);
    const { identifier } = named;
    if (identifier && (await identifiers.boundTo(payer, identifier)) === "another")
      return conflict(payment.wireNetwork, payer);
    const { key, terms } = settlementOf(network, payment);
    const flight = `${key.network}:${key.contract}:${key.payer}:${key.nonce}:${terms.signature}:${identifier?.id ?? ""}`;
    const settleOnce = () => once(flight.toLowerCase(), () => run(network, payment, identifier, paymentId));
    let outcome = await settleOnce();
    // Under an identifier, a duplicate waits for the settle in flight (on any instance) and answers its result.
    const deadline = Date.now() + network.config.receiptTimeoutMs;
    while (identifier && outcome.kind === "refused" && outcome.inFlight && Date.now() < deadline) {
      await Bun.sleep(IN_FLIGHT_POLL_MS);
      outcome = await settleOnce();
    }
    if (outcome.kind === "conflict") return conflict(payment.wireNetwork, payer);
    if (outcome.kind === "refused" && identifier && outcome.inFlight)
      return failure(payment.wireNetwork, "settlementPending", "being settled by another request; settle again", payer);
    if (outcome.kind === "refused")
      return failure(payment.wireNetwork, outcome.refusal, outcome.message, payer, outcome.transaction);
    // Concurrent callers share the outcome; the database lets exactly one of them answer success, besides the
    // requests under the payment identifier bound to this body and settlement.
    const answers =
      (await deps.store.takeSuccessAnswer(outcome.record.id)) ||
      (identifier !== null && (await identifiers.answersFor(identifier, outcome.record)));
    if (!answers)
      return failure(
        payment.wireNetwork,
        "nonceUsed",
        "this payment was already settled for another request",
        payer,
        outcome.record.txHash ?? undefined,
      );
    return {
      success: true,
      payer,
      transaction: outcome.record.txHash ?? "",
      network: payment.wireNetwork,
      amount: terms.amount,
    };
  }

  const conflict = (network: string, payer: string) =>
    failure(network, "paymentIdentifierConflict", IDENTIFIER_CONFLICT, payer);

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

  /**
   * Every check of verify, and the transaction's simulation, before anything is recorded; null when it may be sent.
   * A failed check wins over a failed simulation, as when the simulation came after the checks.
   */
  async function settleChecks(
    network: NetworkRuntime,
    payment: X402Payment,
    transaction: TransactionRequest,
  ): Promise<Outcome | { permitNeeded: boolean } | null> {
    if (
      payment.method === "eip3009" &&
      (await passesLocalChecks(network, deps.rulesFor(network), payment, deps.now()))
    ) {
      // The simulation is the chain's check of an EIP-3009 payment (the token checks the signature, for a contract
      // payer too, the nonce, the window and the balance): one eth_call instead of verify's three besides it. Only
      // a transfer that would revert runs those, to answer why.
      const simulation = await machine.simulate(network, transaction);
      if (!simulation) return null;
      if (simulation.kind !== "would_revert") return notPrepared();
      const check = await checkPayment(network, payment);
      return check.ok ? wouldRevert(payment.method) : refused(check.refusal, check.message);
    }
    // Otherwise the checks' chain reads and the simulation travel in one JSON-RPC batch (one round trip).
    const [check, simulation] = await Promise.all([
      checkPayment(network, payment),
      machine.simulate(network, transaction),
    ]);
    if (!check.ok) return refused(check.refusal, check.message);
    if (simulation) return simulation.kind === "would_revert" ? wouldRevert(payment.method) : notPrepared();
    return { permitNeeded: check.permitNeeded === true };
  }

  const sameAuthorization = (record: X402Settlement, terms: ReturnType<typeof settlementOf>["terms"]) =>
    record.signature === terms.signature &&
    record.recipient === terms.recipient.toLowerCase() &&
    record.amount === terms.amount;

  async function run(
    network: NetworkRuntime,
    payment: X402Payment,
    identifier: PaymentIdentifier | null,
    paymentId: Hex,
  ): Promise<Outcome> {
    const { key, terms, request } = settlementOf(network, payment);
    const known = await deps.store.find(key);
    if (known) {
      const replayed = await replay(network, known, payment);
      if (replayed) return replayed;
      await deps.store.release(known.id);
    }

    const checked = await settleChecks(network, payment, request());
    if (checked && "kind" in checked) {
      // Another request (another instance) may have claimed and settled it since the find above, which is why the
      // chain now shows its nonce used: its record answers, as it would have had this request come a moment later.
      const claimed = await deps.store.find(key);
      return (claimed && (await replay(network, claimed, payment))) || checked;
    }
    // A payer that allows Permit2 already (its permit submitted by someone else, say) is settled without its
    // permit: a used permit would only cost gas. That transaction was not the one simulated.
    const plain = payment.method === "permit2" && payment.eip2612 !== undefined && !checked?.permitNeeded;
    const transaction = request(plain);

    const { record, created } = await deps.store.claim({ ...key, ...terms, paymentId });
    if (!created) return inFlight();
    // The claim proves the body (checked, simulated): only now may its payer's id be bound to it.
    if (identifier && !(await identifiers.bind(identifier, record))) {
      await deps.store.release(record.id);
      return { kind: "conflict" };
    }

    const verdict = await machine.send(network, record, transaction, { simulated: !plain });
    return (
      answer(record, verdict) ?? refused("transactionFailed", "the settlement transaction was dropped; settle again")
    );
  }

  /** A settle of a payment already known: a repeat never answers success twice (takeSuccessAnswer decides). */
  async function replay(
    network: NetworkRuntime,
    record: X402Settlement,
    payment: X402Payment,
  ): Promise<Outcome | null> {
    if (!sameAuthorization(record, settlementOf(network, payment).terms))
      return refused(nonceGone(payment.method), "the nonce belongs to a different authorization");
    return answer(record, await machine.replay(network, record));
  }

  const wouldRevert = (method: Method) =>
    refused(method === "permit2" ? "permit2Simulation" : "simulationFailed", "the transfer would revert");
  const notPrepared = () => refused("unexpectedSettle", "could not prepare the settlement transaction");

  /** x402's answer to a verdict; null when the payment may be settled again. */
  function answer(record: X402Settlement, verdict: SettlementVerdict): Outcome | null {
    const method: Method = isPermit2Record(record) ? "permit2" : "eip3009";
    switch (verdict.kind) {
      case "settled":
        return {
          kind: "success",
          record: { ...record, status: "success", txHash: verdict.txHash, blockNumber: verdict.blockNumber },
        };
      case "dropped":
        return null;
      case "reverted":
        return refused(
          "transactionFailed",
          "the settlement transaction reverted on-chain",
          verdict.txHash || undefined,
        );
      case "rejected":
        return refused(nonceGone(method), verdict.reason);
      case "would_revert":
        return wouldRevert(method);
      case "not_sent":
        return notPrepared();
      case "refused":
        return refused("transactionFailed", "the node refused the settlement transaction");
      case "pending":
        return verdict.why === "in_progress"
          ? inFlight()
          : refused(
              "settlementPending",
              verdict.why === "unreadable"
                ? "could not read the settlement's outcome; settle again"
                : "sent but not yet mined; settle again for the final result",
              verdict.hash ?? undefined,
            );
    }
  }

  /**
   * After a restart, finishes the records the previous process left: one sent is resumed, one never signed is
   * released while its nonce is unused, else the chain decides. A later settle then answers from the record.
   */
  async function reconcile(which?: RecordFilter): Promise<void> {
    await reconcileUnfinished({
      records: await deps.store.unfinished(),
      networks: deps.networks,
      ...(which ? { which } : {}),
      logger: deps.logger,
      event: "x402_settlement_reconciled",
      resolve: (network, record) =>
        once(`${record.network}:${record.contract}:${record.payer}:${record.nonce}:${record.signature}`, () =>
          resolveUnfinished(network, record),
        ),
    });
  }

  async function resolveUnfinished(network: NetworkRuntime, record: X402Settlement): Promise<Outcome | null> {
    const verdict = await machine.reconcile(network, record);
    return verdict ? answer(record, verdict) : null;
  }

  return {
    verify,
    settle,
    reconcile,
    /** The assets a payment can settle in on the network and how (/supported's `extra.assets`, /config's tokens). */
    assets: x402AssetsOf,
  };
}

export type X402Facilitator = ReturnType<typeof createX402Facilitator>;
