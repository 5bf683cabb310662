import { readFileSync } from "node:fs";
import { TransformDecodeError, Value } from "@sinclair/typebox/value";
import { Relay402Error } from "../errors";
import { isUntrustedSetup, SERVED_CIRCUIT_ID } from "../incognito/trusted-setup";
import { envPrefix } from "../networks";
import { fieldsWithPublicKeys } from "./public-keys";
import { CHAIN_IDS, type Config, type ConfigInput, ConfigSchema, NETWORKS } from "./schema";

/** A configuration that cannot run: the message names the field, never its value. */
export class ConfigError extends Relay402Error {
  override name = "ConfigError";
}

/** The local devnet's documented admin key: public, so production refuses it. */
export const DEVNET_ADMIN_API_KEY = "relay402-devnet-admin-key";

/** The local devnet's documented dashboard key: public, so production refuses it. */
export const DEVNET_DASHBOARD_API_KEY = "relay402-devnet-dashboard-key";

/** Defaults for everything that is not a secret and not network specific. */
export const CONFIG_DEFAULTS = {
  mode: "production",
  host: "0.0.0.0",
  port: 4020,
  databasePath: "data/relay402.sqlite",
  masterSaltPrefix: "relay402",
  docsBaseUrl: "https://github.com/relay402/relay402/blob/main/docs/errors.md",
  rateLimitPerMinute: 120,
  trustProxy: false,
  paymasterValiditySeconds: 600,
  logRequests: true,
  shutdownTimeoutMs: 25_000,
  denyAfterReverts: 3,
  denyWindowSeconds: 86_400,
  denySwapsAfterReverts: 3,
  denySwapsWindowSeconds: 3_600,
  keyLeaseMs: 15_000,
} as const;

export const NETWORK_DEFAULTS = {
  maxFeePerGasGwei: 50,
  settleGasLimit: 250_000,
  receiptTimeoutMs: 30_000,
  replaceAfterMs: 15_000,
  validBeforeMarginSeconds: 6,
  deployMaxAttempts: 5,
  deployRetryBackoffSeconds: 30,
} as const;

type Env = Record<string, string | undefined>;
type Json = Record<string, unknown>;

const list = (value: string | undefined) =>
  value
    ?.split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** Environment variables override the file; secrets are expected to come from the environment. */
function applyEnv(raw: Json, env: Env): Json {
  const config: Json = { ...raw };
  const set = (key: string, value: unknown) => {
    if (value !== undefined) config[key] = value;
  };
  set("port", env.PORT === undefined ? undefined : Number(env.PORT));
  set("host", env.HOST);
  set("databasePath", env.DATABASE_PATH);
  set("databaseUrl", env.DATABASE_URL || undefined);
  set("adminApiKey", env.ADMIN_API_KEY);
  set("dashboardApiKey", env.DASHBOARD_API_KEY || undefined);
  set("rateLimitPerMinute", env.RATE_LIMIT_PER_MINUTE === undefined ? undefined : Number(env.RATE_LIMIT_PER_MINUTE));
  set("trustProxy", env.TRUST_PROXY === undefined ? undefined : env.TRUST_PROXY === "true");
  set("shutdownTimeoutMs", env.SHUTDOWN_TIMEOUT_MS === undefined ? undefined : Number(env.SHUTDOWN_TIMEOUT_MS));
  set("keyLeaseMs", env.KEY_LEASE_MS === undefined ? undefined : Number(env.KEY_LEASE_MS));
  set("keyLeasesPerInstance", env.KEY_LEASES_PER_INSTANCE ? Number(env.KEY_LEASES_PER_INSTANCE) : undefined);
  // Comma-separated; replaces the file's list (like the executor keys), so a key can be rotated without the file.
  set("merchantApiKeys", list(env.MERCHANT_API_KEYS));

  const networks = { ...((raw.networks as Json | undefined) ?? {}) };
  for (const name of NETWORKS) {
    // BSC_TESTNET_RPC_URLS, BASE_SEPOLIA_EXECUTOR_KEYS, … (decisions.md, "Networks and paths").
    const prefix = envPrefix(name);
    const current = networks[name] as Json | undefined;
    const rpcUrls = list(env[`${prefix}_RPC_URLS`]);
    if (!current && !rpcUrls) continue;
    const network: Json = { ...NETWORK_DEFAULTS, chainId: CHAIN_IDS[name], ...(current ?? {}) };
    if (rpcUrls) network.rpcUrls = rpcUrls;
    if (env[`${prefix}_BUNDLER_URL`]) network.bundlerUrl = env[`${prefix}_BUNDLER_URL`];
    if (env[`${prefix}_WS_URL`]) network.wsUrl = env[`${prefix}_WS_URL`];
    const executorKeys = list(env[`${prefix}_EXECUTOR_KEYS`]);
    if (executorKeys) network.executorKeys = executorKeys;
    if (env[`${prefix}_PAYMASTER_SIGNER_KEY`]) network.paymasterSignerKey = env[`${prefix}_PAYMASTER_SIGNER_KEY`];
    networks[name] = network;
  }
  config.networks = networks;
  return config;
}

/**
 * Builds the configuration once at start: defaults, then the JSON file named by RELAY402_CONFIG (or
 * `file`), then the environment. A bad value stops the start with a message naming the field; values
 * are never echoed, since some are secrets.
 */
export function loadConfig(options: { env?: Env; file?: string; overrides?: Json } = {}): Config {
  const env = options.env ?? process.env;
  const file = options.file ?? env.RELAY402_CONFIG;
  let fromFile: Json = {};
  if (file) {
    try {
      fromFile = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      // Never the parser's message: it quotes the offending text, which may be a secret.
      const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : "not valid JSON";
      throw new ConfigError(`cannot read config file ${file}: ${reason}`);
    }
  }
  const merged = applyEnv({ ...CONFIG_DEFAULTS, ...fromFile, ...(options.overrides ?? {}) }, env);
  return validateConfig(merged);
}

const fieldOf = (path: string) => path.replace(/^\//, "").replaceAll("/", ".") || "(root)";

/** Checks a config as the file and environment spell it and decodes it into the service's types (see schema.ts). */
export function validateConfig(candidate: unknown): Config {
  const errors = [...Value.Errors(ConfigSchema, candidate)];
  if (errors.length > 0) {
    const fields = [...new Set(errors.map((error) => fieldOf(error.path)))];
    const first = errors[0];
    throw new ConfigError(`invalid config: ${fields.join(", ")} (${first?.path}: ${first?.message})`);
  }
  let config: Config;
  try {
    config = Value.Decode(ConfigSchema, candidate);
  } catch (error) {
    // The decoders' own messages name no value; the value itself is never quoted (it may be a key).
    if (error instanceof TransformDecodeError) {
      throw new ConfigError(`invalid config: ${fieldOf(error.path)} (${error.error.message})`);
    }
    throw error;
  }
  for (const name of NETWORKS) {
    const network = config.networks[name];
    if (network && network.chainId !== CHAIN_IDS[name]) {
      throw new ConfigError(`invalid config: networks.${name}.chainId must be ${CHAIN_IDS[name]}`);
    }
  }
  if (config.mode === "production" && config.adminApiKey === DEVNET_ADMIN_API_KEY) {
    throw new ConfigError("invalid config: adminApiKey is the public devnet key (set your own for production)");
  }
  if (config.mode === "production" && config.dashboardApiKey !== undefined) {
    // The read-only key must not open what the admin key does, nor be the devnet's public one.
    if (config.dashboardApiKey === config.adminApiKey)
      throw new ConfigError("invalid config: dashboardApiKey equals adminApiKey (give the dashboard a key of its own)");
    if (config.dashboardApiKey === DEVNET_ADMIN_API_KEY || config.dashboardApiKey === DEVNET_DASHBOARD_API_KEY)
      throw new ConfigError("invalid config: dashboardApiKey is a public devnet key (set your own for production)");
  }
  if (config.mode === "production") {
    const publicKeyFields = fieldsWithPublicKeys(
      NETWORKS.flatMap((name) => {
        const network = config.networks[name];
        if (!network) return [];
        return [
          ...network.executorKeys.map((key, i) => ({ field: `networks.${name}.executorKeys[${i}]`, key })),
          { field: `networks.${name}.paymasterSignerKey`, key: network.paymasterSignerKey },
        ];
      }),
    );
    if (publicKeyFields.length > 0) {
      throw new ConfigError(
        `invalid config: ${publicKeyFields.join(", ")} ${publicKeyFields.length === 1 ? "is a" : "are"} publicly ` +
          "known key(s) (the test mnemonic 'test test … junk' or the local devnet): anyone can sign with them; " +
          "generate your own for production",
      );
    }
  }
  const incognitoOn = NETWORKS.filter((name) => config.networks[name]?.contracts.privacyPool);
  if (
    config.mode === "production" &&
    incognitoOn.length > 0 &&
    isUntrustedSetup(SERVED_CIRCUIT_ID) &&
    !config.incognito?.allowUntrustedSetup
  ) {
    throw new ConfigError(
      `invalid config: networks.${incognitoOn[0]}.contracts.privacyPool serves incognito with the devnet circuit ` +
        `${SERVED_CIRCUIT_ID}, whose trusted setup was run locally (its maker can forge proofs): use a ceremony's ` +
        "artifacts, remove privacyPool, or set incognito.allowUntrustedSetup: true to accept the risk",
    );
  }
  if (!NETWORKS.some((name) => config.networks[name])) {
    throw new ConfigError(`invalid config: networks (configure at least one of ${NETWORKS.join(", ")})`);
  }
  return config;
}

/** The config as the file and environment spell it (amounts as decimal strings, no accounts): to write a config file. */
export function encodeConfig(config: Config): ConfigInput {
  return Value.Encode(ConfigSchema, config);
}
