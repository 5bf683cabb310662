import { envPrefix } from "../networks";
import { parseMerchantKeys } from "./merchant-keys";
import { CHAIN_IDS, NETWORKS } from "./schema";
import { webhookSecretVariable } from "./webhooks";

export type Env = Record<string, string | undefined>;
type Json = Record<string, unknown>;

const list = (value: string | undefined) =>
  value
    ?.split(",")
    .map((item) => item.trim())
    .filter(Boolean);
const number = (value: string | undefined) => (value === undefined ? undefined : Number(value));
const nonEmpty = (value: string | undefined) => value || undefined;

/** The settings the environment may set at the top level: variable, and how its text becomes the value. */
const ROOT_ENV: Record<string, [variable: string, parse: (value: string | undefined) => unknown]> = {
  port: ["PORT", number],
  host: ["HOST", (value) => value],
  databasePath: ["DATABASE_PATH", (value) => value],
  databaseUrl: ["DATABASE_URL", nonEmpty],
  adminApiKey: ["ADMIN_API_KEY", (value) => value],
  dashboardApiKey: ["DASHBOARD_API_KEY", nonEmpty],
  rateLimitPerMinute: ["RATE_LIMIT_PER_MINUTE", number],
  trustProxy: ["TRUST_PROXY", (value) => (value === undefined ? undefined : value === "true")],
  shutdownTimeoutMs: ["SHUTDOWN_TIMEOUT_MS", number],
  keyLeaseMs: ["KEY_LEASE_MS", number],
  keyLeasesPerInstance: ["KEY_LEASES_PER_INSTANCE", (value) => (value ? Number(value) : undefined)],
  // Comma-separated `key[:0xPayTo…]`; replaces the file's list (like the executor keys), so a key can be rotated
  // without the file.
  merchantApiKeys: ["MERCHANT_API_KEYS", parseMerchantKeys],
};

/** The settings of `networks.<name>` the environment may set, as `<NAME>_<suffix>` (decisions.md). */
const NETWORK_ENV: Record<string, [suffix: string, parse: (value: string | undefined) => unknown]> = {
  rpcUrls: ["RPC_URLS", list],
  bundlerUrl: ["BUNDLER_URL", nonEmpty],
  wsUrl: ["WS_URL", nonEmpty],
  executorKeys: ["EXECUTOR_KEYS", list],
  paymasterSignerKey: ["PAYMASTER_SIGNER_KEY", nonEmpty],
};

/**
 * The environment variable that sets a config field (or an item of it), if one does: `networks.bsc.executorKeys.0`
 * → BSC_EXECUTOR_KEYS. A webhook endpoint's secret is named by the endpoint's id, read from `config` when given.
 */
export function envVariableOf(field: string, config?: unknown): string | undefined {
  const parts = field.split(".");
  if (parts[0] === "webhooks" && parts[1] === "endpoints" && parts[3] === "secret") {
    const endpoints = (config as { webhooks?: { endpoints?: { id?: unknown }[] } } | undefined)?.webhooks?.endpoints;
    const id = Array.isArray(endpoints) ? endpoints[Number(parts[2])]?.id : undefined;
    return typeof id === "string" ? webhookSecretVariable(id) : undefined;
  }
  if (parts[0] === "networks" && parts.length >= 3) {
    const suffix = NETWORK_ENV[parts[2] as string]?.[0];
    return suffix && `${envPrefix(parts[1] as string)}_${suffix}`;
  }
  return ROOT_ENV[parts[0] as string]?.[0];
}

/** A field as a problem names it: with the environment variable that sets it, where there is one. */
export const fieldName = (field: string, config?: unknown) => {
  const variable = envVariableOf(field, config);
  return variable ? `${field} (${variable})` : field;
};

/** Environment variables override the file; secrets are expected to come from the environment. */
export function applyEnv(raw: Json, env: Env, networkDefaults: Json): Json {
  const config: Json = { ...raw };
  for (const [key, [variable, parse]] of Object.entries(ROOT_ENV)) {
    const value = parse(env[variable]);
    if (value !== undefined) config[key] = value;
  }
  const networks = { ...((raw.networks as Json | undefined) ?? {}) };
  for (const name of NETWORKS) {
    const prefix = envPrefix(name);
    const current = networks[name] as Json | undefined;
    const fromEnv = Object.entries(NETWORK_ENV).flatMap(([key, [suffix, parse]]) => {
      const value = parse(env[`${prefix}_${suffix}`]);
      return value === undefined ? [] : [[key, value] as const];
    });
    // A network is configured by the file or by its RPC URLs in the environment.
    if (!current && !fromEnv.some(([key]) => key === "rpcUrls")) continue;
    networks[name] = {
      ...networkDefaults,
      chainId: CHAIN_IDS[name],
      ...(current ?? {}),
      ...Object.fromEntries(fromEnv),
    };
  }
  config.networks = networks;
  const webhooks = raw.webhooks as { endpoints?: Json[] } | undefined;
  if (Array.isArray(webhooks?.endpoints)) {
    // Each endpoint's secret from its own variable, so that the file holds none.
    const endpoints = webhooks.endpoints.map((endpoint) => {
      const secret = typeof endpoint?.id === "string" ? env[webhookSecretVariable(endpoint.id)] : undefined;
      return secret ? { ...endpoint, secret } : endpoint;
    });
    config.webhooks = { ...webhooks, endpoints };
  }
  return config;
}
