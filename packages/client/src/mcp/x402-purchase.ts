import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { type Address, formatUnits, getAddress, isAddress } from "viem";
import { getConfig } from "../get-config.js";
import type { NetworkName } from "../types.js";
import type { PaymentContext } from "./agent-payment.js";
import { fetchWithinHosts, type HostResolver, systemResolver } from "./resource-fetch.js";
import { refusalOfSignedPayment } from "./signed-payment.js";
import { logPayment, type Refusal, refuse, reserveSpend, safeMessage, spendRules } from "./spend-policy.js";

export type PurchaseRequest = { url: string; method: "GET" | "POST"; body?: string; idempotencyKey: string };

/** What an embedder (and a test) may add: schemes registered on the agent's x402Client, and the host resolver. */
export type PurchaseOptions = { configureX402?: (client: x402Client) => void; resolveHost?: HostResolver };

/** What the resource answered (its body cut to this many characters for the agent's context). */
const MAX_BODY = 20_000;

/**
 * Buys an x402 resource: fetches `url` (each redirect hop's host checked); on a 402, picks an `exact` offer in a
 * token the operator allows, reserves what the offer's scheme signs, signs it with @x402/evm's own scheme, checks
 * the signed payload is exactly the reservation, and fetches again with the payment. The merchant's facilitator
 * settles it (relay402's or any). A key already paid is not paid again.
 */
export async function buyWithinLimits(
  context: PaymentContext,
  request: PurchaseRequest,
  options: PurchaseOptions = {},
) {
  const result = await attempt(context, request, options).catch((error) =>
    refuse("payment_failed", safeMessage(error)),
  );
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

/** What an offer asks to be signed, in base units: v1's exact scheme signs `maxAmountRequired`, v2's `amount`. */
function signedAmountOf(version: number, offer: PaymentRequirements): string | Refusal {
  const { amount, maxAmountRequired } = offer as { amount?: unknown; maxAmountRequired?: unknown };
  // A merchant answering both, differently, would have one counted and the other signed.
  if (amount !== undefined && maxAmountRequired !== undefined && amount !== maxAmountRequired) {
    return refuse("validation_error", "the offer's amount and maxAmountRequired disagree");
  }
  const signed = version === 1 ? maxAmountRequired : amount;
  if (typeof signed !== "string" || !/^\d+$/.test(signed) || BigInt(signed) === 0n) {
    return refuse(
      "validation_error",
      `the offer's ${version === 1 ? "maxAmountRequired" : "amount"} is not a positive integer`,
    );
  }
  return signed;
}

async function attempt(
  context: PaymentContext,
  request: PurchaseRequest,
  options: PurchaseOptions,
): Promise<Purchase | Refusal> {
  const { settings } = context;
  if (!settings.allowedHosts?.length) {
    return refuse(
      "limit_exceeded",
      'relay402_buy buys only from listed hosts: add "allowedHosts": ["shop.example.com", "127.0.0.1:8080"] (host[:port]) to the config file (RELAY402_MCP_CONFIG) and restart the server',
      "allowedHosts",
    );
  }
  const hosts = { allowedHosts: settings.allowedHosts, resolve: options.resolveHost ?? systemResolver };
  const init = { method: request.method, body: request.body };
  const first = await fetchWithinHosts(new URL(request.url), init, hosts);
  if (!("response" in first)) return first;
  const { response, url } = first;
  if (response.status !== 402) return answerOf(response);

  const config = await getConfig(context.relay402);
  // Chain ids as the agent's own RPCs answer them: an offer's eip155 network is paid only on such a chain.
  const byChain = new Map<number, NetworkName>();
  for (const name of Object.keys(config.networks) as NetworkName[]) {
    if (settings.rpcUrls[name]) byChain.set(await context.chain.chainIdOf(name), name);
  }
  const networkOf = (offer: PaymentRequirements) => {
    const chainId = /^eip155:(\d+)$/.exec(offer.network)?.[1];
    return chainId
      ? byChain.get(Number(chainId))
      : [...byChain.values()].find((name) => name === (offer.network as string));
  };
  // The agent's RPCs let @x402/evm read the payer's allowance and the token's permit nonce: a key without native
  // coin then pays a permit token through the merchant's eip2612GasSponsoring.
  const rpc = Object.fromEntries(
    [...byChain].flatMap(([chainId, name]) =>
      settings.rpcUrls[name] ? [[chainId, { rpcUrl: settings.rpcUrls[name] }]] : [],
    ),
  );
  const probe = new x402HTTPClient(new x402Client());
  const required = probe.getPaymentRequiredResponse(
    (name) => response.headers.get(name),
    await response.json().catch(() => undefined),
  );

  let refusal: Refusal = refuse(
    "validation_error",
    "the resource offers no exact EVM payment on a network configured here",
  );
  for (const offer of required.accepts) {
    const network = networkOf(offer);
    const networkConfig = network ? config.networks[network] : undefined;
    if (offer.scheme !== "exact" || !network || !networkConfig || !isAddress(offer.payTo)) continue;
    const amount = signedAmountOf(required.x402Version, offer);
    if (typeof amount !== "string") {
      refusal = amount;
      continue;
    }
    const to = getAddress(offer.payTo);
    const rules = await spendRules(settings, context.chain, networkConfig, network, offer.asset, to);
    if ("status" in rules) {
      refusal = rules;
      continue;
    }
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
    const release = () => context.ledger.settle({ ...entry, state: "released" });
    const client = registerExactEvmScheme(new x402Client(), { signer: settings.account, schemeOptions: rpc });
    // x402's own cap is set, not left to its defaults (a $1 cap on the assets it knows, none on the others): this
    // one token, at most the amount reserved.
    client.setSpendControls({
      maxAmountPerPayment: false,
      allowedAssets: [{ network: offer.network, asset: token.address, maxAmountPerPayment: amount }],
    });
    options.configureX402?.(client);
    const http = new x402HTTPClient(client);
    const signed = await client.createPaymentPayload({ ...required, accepts: [offer] }).catch(async (error) => {
      await release();
      throw error;
    });
    const extra = offer.extra as { name?: unknown; version?: unknown } | undefined;
    const why = await refusalOfSignedPayment(offer.scheme, signed, {
      agent: settings.account.address,
      chainId: await context.chain.chainIdOf(network),
      token: token.address,
      domain:
        typeof extra?.name === "string" && typeof extra.version === "string"
          ? { name: extra.name, version: extra.version }
          : null,
      amount: BigInt(amount),
      to,
    });
    if (why) {
      // Signed here but never sent: nothing can move.
      await release();
      return refuse("payment_mismatch", `the signed payment is not the one reserved, so it was not sent: ${why}`);
    }
    const paid = await fetchWithinHosts(url, init, hosts, http.encodePaymentSignatureHeader(signed));
    if (!("response" in paid)) {
      await release();
      return paid;
    }
    const { response: answer } = paid;
    if (answer.status === 402) {
      // Refused by the merchant's facilitator: nothing was settled.
      await release();
      return refuse("payment_refused", `the resource answered 402 again: ${(await answer.text()).slice(0, 300)}`);
    }
    let transaction: string | undefined;
    try {
      transaction = http.getPaymentSettleResponse((name) => answer.headers.get(name)).transaction;
    } catch {
      // No settlement header: the ledger keeps the reservation (counted) without a transaction.
    }
    await context.ledger.settle({ ...entry, state: "paid", transaction });
    return { ...(await answerOf(answer)), payment: { ...payment, transaction, repeated: false } };
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
