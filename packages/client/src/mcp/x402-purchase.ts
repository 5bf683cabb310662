import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { type Address, formatUnits, getAddress, isAddress } from "viem";
import { getConfig } from "../get-config.js";
import type { NetworkName } from "../types.js";
import type { PaymentContext } from "./agent-payment.js";
import { logPayment, type Refusal, refuse, reserveSpend, safeMessage, spendRules } from "./spend-policy.js";

export type PurchaseRequest = { url: string; method: "GET" | "POST"; body?: string; idempotencyKey: string };

/** What the resource answered (its body cut to this many characters for the agent's context). */
const MAX_BODY = 20_000;

/**
 * Buys an x402 resource: fetches `url`; on a 402, picks an `exact` offer in a token the operator allows, checks and
 * reserves it in the ledger, signs it with @x402/evm's own scheme and fetches again with the payment. The merchant's
 * facilitator settles it (relay402's or any). A key already paid is not paid again.
 */
export async function buyWithinLimits(context: PaymentContext, request: PurchaseRequest) {
  const result = await attempt(context, request).catch((error) => refuse("payment_failed", safeMessage(error)));
  logPayment(context.logFile, {
    tool: "relay402_buy",
    url: new URL(request.url).origin + new URL(request.url).pathname,
    idempotencyKey: request.idempotencyKey,
    ...("payment" in result && result.payment
      ? { ...result.payment, result: result.payment.repeated ? "repeated" : `paid (HTTP ${result.status})` }
      : "status" in result && result.status === "refused"
        ? { result: "refused", code: result.code, limit: result.limit }
        : { result: "no payment asked" }),
  });
  return result;
}

type Purchase = {
  status: number;
  contentType: string | null;
  body: string;
  payment?: {
    network: NetworkName;
    token: Address;
    amount: string;
    amountBaseUnits: string;
    to: Address;
    transaction?: string;
    repeated: boolean;
  };
};

async function attempt(context: PaymentContext, request: PurchaseRequest): Promise<Purchase | Refusal> {
  const { settings } = context;
  const url = new URL(request.url);
  if (settings.allowedHosts && !settings.allowedHosts.includes(url.host.toLowerCase())) {
    return refuse("limit_exceeded", `${url.host} is not an allowed host`, "allowedHosts");
  }
  const init = { method: request.method, body: request.body };
  const first = await fetch(url, init);
  if (first.status !== 402) return answerOf(first);

  const config = await getConfig(context.relay402);
  // The agent's RPCs let @x402/evm read the payer's allowance and the token's permit nonce: a key without native
  // coin then pays a permit token through the merchant's eip2612GasSponsoring.
  const rpc = Object.fromEntries(
    Object.entries(settings.rpcUrls).flatMap(([name, rpcUrl]) => {
      const chainId = config.networks[name as NetworkName]?.chainId;
      return chainId && rpcUrl ? [[chainId, { rpcUrl }]] : [];
    }),
  );
  const client = registerExactEvmScheme(new x402Client(), { signer: settings.account, schemeOptions: rpc });
  // Which assets may be paid is the operator's limits' business (below), not x402's list of known assets.
  client.setSpendControls({ allowedAssets: true });
  const http = new x402HTTPClient(client);
  const required = http.getPaymentRequiredResponse(
    (name) => first.headers.get(name),
    await first.json().catch(() => undefined),
  );
  const byChain = new Map(
    Object.entries(config.networks).map(([name, network]) => [network?.chainId, name as NetworkName]),
  );
  const networkOf = (offer: PaymentRequirements) => {
    const chainId = /^eip155:(\d+)$/.exec(offer.network)?.[1];
    return chainId ? byChain.get(Number(chainId)) : (offer.network as NetworkName);
  };

  let refusal: Refusal = refuse(
    "validation_error",
    "the resource offers no exact EVM payment on a network configured here",
  );
  for (const offer of required.accepts) {
    const network = networkOf(offer);
    const networkConfig = network ? config.networks[network] : undefined;
    if (offer.scheme !== "exact" || !network || !networkConfig || !isAddress(offer.payTo)) continue;
    const to = getAddress(offer.payTo);
    const rules = spendRules(settings, networkConfig, network, offer.asset, to);
    if ("status" in rules) {
      refusal = rules;
      continue;
    }
    const amount = (offer as { amount?: string }).amount ?? (offer as { maxAmountRequired?: string }).maxAmountRequired;
    if (!amount || !/^\d+$/.test(amount)) continue;
    const { token, caps } = rules;
    const entry = { key: `x402:${request.idempotencyKey}`, network, token: token.address, to, amount, at: Date.now() };
    const reservation = await reserveSpend(context.ledger, entry, caps, token);
    if ("status" in reservation) return reservation;
    const payment = {
      network,
      token: token.address,
      amount: formatUnits(BigInt(amount), token.decimals),
      amountBaseUnits: amount,
      to,
    };
    if (reservation.existing) {
      return {
        status: 409,
        contentType: null,
        body: "this idempotency key already bought this resource: nothing was paid again",
        payment: { ...payment, transaction: reservation.existing.transaction, repeated: true },
      };
    }
    const payload = await client.createPaymentPayload({ ...required, accepts: [offer] });
    const paid = await fetch(url, { ...init, headers: http.encodePaymentSignatureHeader(payload) });
    if (paid.status === 402) {
      // Refused by the merchant's facilitator: nothing was settled.
      await context.ledger.settle({ ...entry, state: "released" });
      return refuse("payment_refused", `the resource answered 402 again: ${(await paid.text()).slice(0, 300)}`);
    }
    let transaction: string | undefined;
    try {
      transaction = http.getPaymentSettleResponse((name) => paid.headers.get(name)).transaction;
    } catch {
      // No settlement header: the ledger keeps the reservation (counted) without a transaction.
    }
    await context.ledger.settle({ ...entry, state: "paid", transaction });
    return { ...(await answerOf(paid)), payment: { ...payment, transaction, repeated: false } };
  }
  return refusal;
}

async function answerOf(response: Response): Promise<Purchase> {
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: text.length > MAX_BODY ? `${text.slice(0, MAX_BODY)}… (${text.length} characters)` : text,
  };
}
