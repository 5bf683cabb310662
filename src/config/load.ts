import { readFileSync } from "node:fs";
import { TransformDecodeError, Value } from "@sinclair/typebox/value";
import { Relay402Error } from "../errors";
import { isUntrustedSetup, SERVED_CIRCUIT_ID } from "../incognito/trusted-setup";
import { type Capability, missingSettings, SMART_WALLET_SETTINGS, settingOf } from "./capabilities";
import { applyEnv, type Env, fieldName } from "./env";
import { fieldsWithPublicKeys } from "./public-keys";
import { CHAIN_IDS, type Config, type ConfigInput, ConfigSchema, NETWORKS } from "./schema";
import { unknownSettings } from "./unknown-settings";

/** A configuration that cannot run: the message names every problem's field, never its value. */
export class ConfigError extends Relay402Error {
  override name = "ConfigError";
  /** Each problem on its own (the message joins them), for `relay402 check`'s list. */
  readonly problems: readonly string[];

  constructor(message: string, problems: readonly string[] = [message]) {
    super(message);
    this.problems = problems;
  }
}

const invalid = (problems: string[]) => new ConfigError(`invalid config: ${problems.join("; ")}`, problems);

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

type Json = Record<string, unknown>;

export const NETWORK_DEFAULTS = {
  maxFeePerGasGwei: 50,
  settleGasLimit: 250_000,
  receiptTimeoutMs: 30_000,
  replaceAfterMs: 15_000,
  validBeforeMarginSeconds: 6,
  deployMaxAttempts: 5,
  deployRetryBackoffSeconds: 30,
} as const;

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
  const merged = applyEnv({ ...CONFIG_DEFAULTS, ...fromFile, ...(options.overrides ?? {}) }, env, NETWORK_DEFAULTS);
  return validateConfig(merged);
}

const fieldOf = (path: string) => path.replace(/^\//, "").replaceAll("/", ".") || "(root)";

/** Schema problems, one per field (its first message: TypeBox's name the expected shape, never the value). */
function schemaProblems(candidate: unknown): string[] {
  const byField = new Map<string, string>();
  for (const error of Value.Errors(ConfigSchema, candidate)) {
    const field = fieldOf(error.path);
    const message = error.schema.format === "secp256k1-private-key" ? "not a secp256k1 private key" : error.message;
    if (!byField.has(field)) byField.set(field, message);
  }
  return [...byField].map(([field, message]) => `${fieldName(field, candidate)}: ${message}`);
}

/** The setting that asks for a capability by itself (the others it needs are shared with other capabilities). */
const OWN_SETTING: Partial<Record<Capability, string>> = { incognito: "contracts.privacyPool", swaps: "swap" };

/** The rules no schema says: a network's chain id, settings that only work together, one swap router per kind. */
function networkRuleProblems(candidate: Json): string[] {
  const networks = (candidate.networks ?? {}) as Record<string, Json | undefined>;
  const problems: string[] = [];
  for (const name of NETWORKS) {
    const network = networks[name];
    if (!network) continue;
    const field = `networks.${name}`;
    if (network.chainId !== CHAIN_IDS[name]) problems.push(`${field}.chainId must be ${CHAIN_IDS[name]}`);
    const setWallet = SMART_WALLET_SETTINGS.filter((path) => settingOf(network, path) !== undefined);
    const partialWallet = setWallet.length > 0 && setWallet.length < SMART_WALLET_SETTINGS.length;
    if (partialWallet) {
      const missing = SMART_WALLET_SETTINGS.filter((path) => !setWallet.includes(path as never));
      problems.push(
        `${missing.map((path) => fieldName(`${field}.${path}`)).join(", ")}: smart wallets need ` +
          `${SMART_WALLET_SETTINGS.join(", ")} together (set the rest, or remove them to serve payments only)`,
      );
    }
    // A capability's own setting without the rest of what it needs is a mistake, not a wish to leave it off.
    for (const [capability, own] of Object.entries(OWN_SETTING) as [Capability, string][]) {
      if (settingOf(network, own) === undefined) continue;
      const missing = missingSettings(network, capability).filter(
        (path) => !(partialWallet && SMART_WALLET_SETTINGS.includes(path as never)),
      );
      if (missing.length > 0) {
        problems.push(
          `${field}.${own}: ${capability} need ${missing.map((path) => fieldName(`${field}.${path}`)).join(", ")}`,
        );
      }
    }
    const swap = network.swap as { routers?: { kind?: string }[]; quoter?: unknown } | undefined;
    const kinds = (swap?.routers ?? []).map((router) => router?.kind);
    if (kinds.filter((kind) => kind === "v2").length > 1 || kinds.filter((kind) => kind === "v3").length > 1) {
      problems.push(`${field}.swap.routers: at most one router per kind`);
    }
    if (kinds.includes("v3") && !swap?.quoter) problems.push(`${field}.swap.quoter is required with a v3 router`);
  }
  if (NETWORKS.every((name) => !networks[name])) problems.push(`networks: configure ${NETWORKS.join(", ")} or several`);
  return problems;
}

/** The production rules: no public key, no devnet circuit unless accepted. */
function productionProblems(config: Config): string[] {
  if (config.mode !== "production") return [];
  const problems: string[] = [];
  if (config.adminApiKey === DEVNET_ADMIN_API_KEY) {
    problems.push(`${fieldName("adminApiKey")} is the public devnet key (set your own for production)`);
  }
  // The read-only dashboard key must not open what the admin key does, nor be one of the devnet's public keys.
  if (config.dashboardApiKey !== undefined && config.dashboardApiKey === config.adminApiKey) {
    problems.push(`${fieldName("dashboardApiKey")} equals adminApiKey (give the dashboard a key of its own)`);
  }
  if (config.dashboardApiKey === DEVNET_ADMIN_API_KEY || config.dashboardApiKey === DEVNET_DASHBOARD_API_KEY) {
    problems.push(`${fieldName("dashboardApiKey")} is a public devnet key (set your own for production)`);
  }
  const publicKeyFields = fieldsWithPublicKeys(
    NETWORKS.flatMap((name) => {
      const network = config.networks[name];
      if (!network) return [];
      return [
        ...network.executorKeys.map((key, i) => ({ field: `networks.${name}.executorKeys[${i}]`, key })),
        ...(network.paymasterSignerKey
          ? [{ field: `networks.${name}.paymasterSignerKey`, key: network.paymasterSignerKey }]
          : []),
      ];
    }),
  );
  if (publicKeyFields.length > 0) {
    problems.push(
      `${publicKeyFields.join(", ")} ${publicKeyFields.length === 1 ? "is a" : "are"} publicly ` +
        "known key(s) (the test mnemonic 'test test … junk' or the local devnet): anyone can sign with them; " +
        "generate your own for production",
    );
  }
  const incognitoOn = NETWORKS.filter((name) => config.networks[name]?.contracts.privacyPool);
  if (incognitoOn.length > 0 && isUntrustedSetup(SERVED_CIRCUIT_ID) && !config.incognito?.allowUntrustedSetup) {
    problems.push(
      `networks.${incognitoOn[0]}.contracts.privacyPool serves incognito with the devnet circuit ` +
        `${SERVED_CIRCUIT_ID}, whose trusted setup was run locally (its maker can forge proofs): use a ceremony's ` +
        "artifacts, remove privacyPool, or set incognito.allowUntrustedSetup: true to accept the risk",
    );
  }
  return problems;
}

/**
 * Checks a config as the file and environment spell it and decodes it into the service's types (see schema.ts).
 * Strict: an unknown setting at any level is refused with the nearest known name. Every problem is reported at
 * once, each naming its field (and the environment variable that sets it), never its value.
 */
export function validateConfig(candidate: unknown): Config {
  const problems = [
    ...unknownSettings(ConfigSchema, candidate),
    ...schemaProblems(candidate),
    ...(candidate && typeof candidate === "object" ? networkRuleProblems(candidate as Json) : []),
  ];
  if (problems.length > 0) throw invalid(problems);
  let config: Config;
  try {
    config = Value.Decode(ConfigSchema, candidate);
  } catch (error) {
    // The decoders' own messages name no value; the value itself is never quoted (it may be a key).
    if (error instanceof TransformDecodeError) throw invalid([`${fieldOf(error.path)}: ${error.error.message}`]);
    throw error;
  }
  const production = productionProblems(config);
  if (production.length > 0) throw invalid(production);
  return config;
}

/** The config as the file and environment spell it (amounts as decimal strings, no accounts): to write a config file. */
export function encodeConfig(config: Config): ConfigInput {
  return Value.Encode(ConfigSchema, config);
}
