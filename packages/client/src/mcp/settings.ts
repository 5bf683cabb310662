import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Address, getAddress, type Hex, isAddress } from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import { NETWORKS, type NetworkName } from "../wire/networks.js";

/** The operator's caps on one token of one network, in the token's units ("2.5"). Each is optional. */
export type TokenLimits = {
  network: NetworkName;
  token: Address;
  perPayment?: string;
  perDay?: string;
  total?: string;
};

/**
 * What the MCP server runs with. It comes from the server's own environment and config file, never from a tool's
 * arguments, so the agent cannot raise a limit.
 */
export type McpSettings = {
  url: string;
  account: PrivateKeyAccount;
  rpcUrls: Partial<Record<NetworkName, string>>;
  /** Only tokens listed here can be spent (no entry: the token is refused). */
  limits: TokenLimits[];
  /** When set, payments go only to these addresses. */
  allowedRecipients?: Address[];
  /** The hosts (`host[:port]`) x402 resources are bought from; without them relay402_buy buys nothing. */
  allowedHosts?: string[];
  /** spent.jsonl (the spend ledger) and payments.log (the operator's log) live here. */
  dataDir: string;
};

const amountText = z.string().regex(/^\d+(\.\d+)?$/, "an amount in token units, like 2.5");
const address = z.string().refine((value) => isAddress(value), "an address");

const configFileSchema = z
  .object({
    rpcUrls: z.record(z.enum(NETWORKS), z.string().url()),
    limits: z.array(
      z
        .object({
          network: z.enum(NETWORKS),
          token: address,
          perPayment: amountText.optional(),
          perDay: amountText.optional(),
          total: amountText.optional(),
        })
        .strict(),
    ),
    allowedRecipients: z.array(address).optional(),
    allowedHosts: z.array(z.string().min(1)).optional(),
    dataDir: z.string().min(1).optional(),
  })
  .strict();

/** The hostnames of this machine itself, as a URL spells them. */
const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

export class SettingsError extends Error {
  override name = "SettingsError";
}

/**
 * Reads RELAY402_URL, RELAY402_PRIVATE_KEY and the file named by RELAY402_MCP_CONFIG. Messages name the
 * variable or the field at fault and never echo a value (the key, RPC URLs that may hold API keys).
 */
export function loadMcpSettings(env: Record<string, string | undefined>): McpSettings {
  const url = env.RELAY402_URL;
  if (!url || !URL.canParse(url)) throw new SettingsError("RELAY402_URL must be the service's URL");
  const service = new URL(url);
  // The service's answers choose what is signed (its contracts, its tokens): they travel encrypted, unless the
  // service runs on this machine.
  if (service.protocol !== "https:" && !(service.protocol === "http:" && LOOPBACK.includes(service.hostname))) {
    throw new SettingsError("RELAY402_URL must be https: (http: only for localhost, 127.0.0.1 or [::1])");
  }
  const key = env.RELAY402_PRIVATE_KEY;
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) {
    throw new SettingsError("RELAY402_PRIVATE_KEY must be a 0x-prefixed 32-byte hex private key");
  }
  const path = env.RELAY402_MCP_CONFIG;
  if (!path) throw new SettingsError("RELAY402_MCP_CONFIG must name the MCP server's config file (JSON)");
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new SettingsError(`cannot read RELAY402_MCP_CONFIG as JSON: ${(error as Error).name}`);
  }
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SettingsError(`RELAY402_MCP_CONFIG: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
  }
  const file = parsed.data;
  return {
    url,
    account: privateKeyToAccount(key as Hex),
    rpcUrls: file.rpcUrls,
    limits: file.limits.map((limit) => ({ ...limit, token: getAddress(limit.token) })),
    allowedRecipients: file.allowedRecipients?.map((recipient) => getAddress(recipient)),
    allowedHosts: file.allowedHosts?.map((host) => host.toLowerCase()),
    dataDir: file.dataDir ?? join(path, ".."),
  };
}
