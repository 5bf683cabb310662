import { appendFileSync } from "node:fs";
import { type Address, formatUnits, parseUnits } from "viem";
import { Relay402ClientError } from "../errors.js";
import type { NetworkConfig, TokenConfig } from "../get-config.js";
import type { NetworkName } from "../types.js";
import { type ChainFacts, withChainDecimals } from "./chain-facts.js";
import type { McpSettings } from "./settings.js";
import type { Caps, LedgerEntry, SpendLedger } from "./spend-ledger.js";

/** A payment not made: `limit` names the operator's limit it breaks, when that is why. */
export type Refusal = { status: "refused"; code: string; message: string; limit?: string };

export const refuse = (code: string, message: string, limit?: string): Refusal => ({
  status: "refused",
  code,
  message,
  limit,
});

/**
 * The operator's rules for paying `to` in `tokenText` (an address or a symbol of /config) on `network`: the
 * network must have an RPC here, the recipient be allowed, the token have a limit entry (none: refused). Answers
 * the token, with the decimals its contract answers on the agent's RPC, and its caps in base units.
 */
export async function spendRules(
  settings: McpSettings,
  facts: ChainFacts,
  config: NetworkConfig,
  network: NetworkName,
  tokenText: string,
  to: Address,
): Promise<Refusal | { token: TokenConfig; caps: Caps }> {
  if (!settings.rpcUrls[network]) return refuse("network_not_configured", `no RPC URL is configured for ${network}`);
  const allowed = settings.allowedRecipients;
  // A swap pays the agent itself: the recipient list is about paying others.
  const self = to.toLowerCase() === settings.account.address.toLowerCase();
  if (allowed && !self && !allowed.some((address) => address.toLowerCase() === to.toLowerCase())) {
    return refuse("limit_exceeded", `${to} is not an allowed recipient`, "allowedRecipients");
  }
  const wanted = tokenText.toLowerCase();
  const listed = config.tokens.find((t) => t.address.toLowerCase() === wanted || t.symbol.toLowerCase() === wanted);
  if (!listed) return refuse("validation_error", `token ${tokenText} is not offered on ${network}`);
  const limits = settings.limits.find(
    (l) => l.network === network && l.token.toLowerCase() === listed.address.toLowerCase(),
  );
  if (!limits) {
    return refuse("limit_exceeded", `no spending limit is configured for ${listed.symbol} on ${network}`, "token");
  }
  const token = await withChainDecimals(facts, network, listed);
  const unitsOf = (text: string | undefined) => (text === undefined ? undefined : parseUnits(text, token.decimals));
  return {
    token,
    caps: { perPayment: unitsOf(limits.perPayment), perDay: unitsOf(limits.perDay), total: unitsOf(limits.total) },
  };
}

/** Reserves `entry` in the ledger: a refusal that names the limit, or the key's earlier entry, or a new one. */
export async function reserveSpend(
  ledger: SpendLedger,
  entry: Omit<LedgerEntry, "state">,
  caps: Caps,
  token: TokenConfig,
): Promise<Refusal | { existing?: LedgerEntry }> {
  const reservation = await ledger.reserve(entry, caps);
  if (reservation.kind === "new") return {};
  if (reservation.kind === "existing") {
    const previous = reservation.entry;
    const same =
      previous.to.toLowerCase() === entry.to.toLowerCase() &&
      previous.amount === entry.amount &&
      previous.token === entry.token;
    return same
      ? { existing: previous }
      : refuse("idempotency_conflict", "this idempotency key was used for a different payment");
  }
  const format = (value: bigint) => `${formatUnits(value, token.decimals)} ${token.symbol}`;
  const what = { perPayment: "per payment", perDay: "in 24 hours", total: "in total" }[reservation.limit];
  return refuse(
    "limit_exceeded",
    `${format(BigInt(entry.amount))} exceeds the limit of ${format(reservation.cap)} ${what} (already spent ${format(reservation.spent)})`,
    reservation.limit,
  );
}

/** One line of the operator's payment log (JSON lines): time, tool, what, to whom, and the result. No secrets. */
export function logPayment(file: string, line: Record<string, unknown>): void {
  appendFileSync(file, `${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`);
}

/**
 * What an agent may read of an error: the service's own message, or viem's short one. Never the full text of an
 * RPC error, which names the RPC URL (and the API key it may hold).
 */
export function safeMessage(error: unknown): string {
  if (error instanceof Relay402ClientError) return error.message.slice(0, 300);
  const short = (error as { shortMessage?: unknown }).shortMessage;
  return typeof short === "string" ? short.slice(0, 300) : (error as Error).name || "Error";
}
