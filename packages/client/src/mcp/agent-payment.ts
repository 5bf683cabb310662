import {
  type Address,
  encodeAbiParameters,
  formatUnits,
  type Hex,
  keccak256,
  type PublicClient,
  parseUnits,
} from "viem";
import type { Relay402Client } from "../client.js";
import { Relay402ClientError } from "../errors.js";
import { getNetworkConfig } from "../get-config.js";
import { onboardPayer } from "../onboarding.js";
import { settlePayment, verifyPayment } from "../pay.js";
import { defaultValidBefore, signTransferAuthorization } from "../sign-authorization.js";
import type { NetworkName, SignerClient } from "../types.js";
import type { ChainFacts } from "./chain-facts.js";
import type { McpSettings } from "./settings.js";
import type { SpendLedger } from "./spend-ledger.js";
import { logPayment, type Refusal, refuse, reserveSpend, safeMessage, spendRules } from "./spend-policy.js";

export type PaymentRequest = {
  network: NetworkName;
  /** The token's address or its symbol in /config. */
  token: string;
  to: Address;
  /** In token units ("2.5"). */
  amount: string;
  idempotencyKey: string;
};

export type PaymentOutcome =
  | {
      status: "paid";
      network: NetworkName;
      token: Address;
      symbol: string;
      to: Address;
      amount: string;
      amountBaseUnits: string;
      transaction: string;
      idempotencyKey: string;
      /** True when this idempotency key had already paid: nothing new was sent. */
      repeated: boolean;
    }
  | Refusal;

/**
 * The nonce a payment signs: derived from the payer and the agent's idempotency key, so a retried call signs the
 * same nonce and the relayer (which refuses a used one) lets it pay once.
 */
export function idempotentNonce(payer: Address, idempotencyKey: string): Hex {
  return keccak256(encodeAbiParameters([{ type: "address" }, { type: "string" }], [payer, idempotencyKey]));
}

export type PaymentContext = {
  settings: McpSettings;
  relay402: Relay402Client;
  ledger: SpendLedger;
  /** Chain ids and token decimals as the agent's own RPCs answer them (never the service's /config). */
  chain: ChainFacts;
  clientsFor(network: NetworkName): Promise<{ signer: SignerClient; publicClient: PublicClient }>;
  /** The operator's log file (JSON lines): one line per payment asked for, whatever its result. */
  logFile: string;
};

/** An EOA payment within the operator's limits: checked and reserved in the ledger before anything is signed. */
export async function payWithinLimits(
  context: PaymentContext,
  tool: string,
  request: PaymentRequest,
): Promise<PaymentOutcome> {
  const outcome = await attempt(context, request).catch((error) => refuse("payment_failed", safeMessage(error)));
  logPayment(context.logFile, {
    tool,
    network: request.network,
    token: outcome.status === "paid" ? outcome.token : request.token,
    amount: request.amount,
    to: request.to,
    idempotencyKey: request.idempotencyKey,
    result: outcome.status === "paid" ? (outcome.repeated ? "repeated" : "paid") : "refused",
    ...(outcome.status === "paid"
      ? { transaction: outcome.transaction }
      : { code: outcome.code, limit: outcome.limit }),
  });
  return outcome;
}

async function attempt(context: PaymentContext, request: PaymentRequest): Promise<PaymentOutcome> {
  const { settings, relay402, ledger } = context;
  const config = await getNetworkConfig(relay402, request.network);
  const rules = await spendRules(settings, context.chain, config, request.network, request.token, request.to);
  if ("status" in rules) return rules;
  const chainId = await context.chain.chainIdOf(request.network);
  if (config.chainId !== chainId || config.eip712Domain.chainId !== chainId) {
    // What is signed names the service's chain: a service on another chain than the agent's RPC is not paid.
    return refuse(
      "validation_error",
      `the service's ${request.network} is not the chain ${chainId} of this agent's RPC`,
    );
  }
  const { token, caps } = rules;
  let value: bigint;
  try {
    value = parseUnits(request.amount, token.decimals);
  } catch {
    return refuse("validation_error", `amount must be a decimal in ${token.symbol} units`);
  }
  const fraction = request.amount.split(".")[1] ?? "";
  if (fraction.length > token.decimals || value <= 0n) {
    return refuse("validation_error", `amount must be positive with at most ${token.decimals} decimals`);
  }
  const paid = (amount: bigint, transaction: string, repeated: boolean): PaymentOutcome => ({
    status: "paid",
    network: request.network,
    token: token.address,
    symbol: token.symbol,
    to: request.to,
    amount: formatUnits(amount, token.decimals),
    amountBaseUnits: amount.toString(),
    transaction,
    idempotencyKey: request.idempotencyKey,
    repeated,
  });

  const entry = {
    key: `${request.network}:${request.idempotencyKey}`,
    network: request.network,
    token: token.address,
    to: request.to,
    amount: value.toString(),
    at: Date.now(),
  };
  const reservation = await reserveSpend(ledger, entry, caps, token);
  if ("status" in reservation) return reservation;
  const previous = reservation.existing;
  if (previous?.state === "paid" && previous.transaction) return paid(value, previous.transaction, true);
  // Reserved without an outcome (a crash mid-payment): paying again signs the same nonce, which the chain
  // accepts once; the settle answers the first result.

  const nonce = idempotentNonce(settings.account.address, request.idempotencyKey);
  let settleSent = false;
  try {
    const { signer, publicClient } = await context.clientsFor(request.network);
    // An agent's key often holds only the token it pays with: without gas for an approve, a permit where the token
    // has one, else an approve the service funds.
    const validBefore = defaultValidBefore(config);
    const { payloadFields } = await onboardPayer({
      signer,
      publicClient,
      token,
      chainId: config.chainId,
      relayer: config.contracts.relayer,
      amount: value,
      deadline: validBefore,
      fundedApprove: config.fundedApprove,
    });
    const paymentPayload = await signTransferAuthorization({
      signer,
      config,
      token: token.address,
      to: request.to,
      value,
      nonce,
      validBefore,
    });
    const body = {
      paymentPayload: { ...paymentPayload, ...payloadFields },
      paymentRequirements: { network: request.network, relayerContract: config.contracts.relayer },
    };
    await verifyPayment(relay402, body);
    settleSent = true;
    const settlement = await settlePayment(relay402, body);
    if (!settlement.success)
      return refuse("settlement_failed", `the service did not settle: ${settlement.transaction}`);
    await ledger.settle({ ...entry, state: "paid", transaction: settlement.transaction });
    return paid(value, settlement.transaction, false);
  } catch (error) {
    const code = error instanceof Relay402ClientError ? error.code : "payment_failed";
    // A failure before /settle was sent moved nothing: give the reservation back. After, the outcome may be
    // unknown, so it stays reserved (counted) and the same idempotency key retries it safely. A used nonce may
    // be this key's own earlier payment: it stays counted too.
    if (!settleSent && code !== "nonce_error" && !previous) await ledger.settle({ ...entry, state: "released" });
    if (error instanceof Relay402ClientError && error.isPending) {
      const id = typeof error.details?.paymentId === "string" ? ` (payment ${error.details.paymentId})` : "";
      return refuse(
        "settlement_pending",
        `the payment was sent and is not confirmed yet${id}: call again with the same idempotencyKey for its result`,
      );
    }
    if (code === "nonce_error") {
      return refuse(
        code,
        "this idempotency key's nonce is already used on chain (it paid before, or was cancelled): nothing new was paid",
      );
    }
    return refuse(code, safeMessage(error));
  }
}
