import type { Address } from "viem";
import type { LocalAccount } from "viem/accounts";
import { ApiError } from "../errors";
import { fieldName } from "./env";
import type { NetworkConfig } from "./schema";

/** What sponsored UserOps need: the capabilities built on smart wallets each need all of it. */
const USER_OP_SETTINGS = [
  "contracts.relayer",
  "bundlerUrl",
  "contracts.entryPoint",
  "contracts.factory",
  "contracts.paymaster",
  "paymasterSignerKey",
] as const;

/**
 * What a network serves, each capability enabled by its own settings (under `networks.<name>`): a network needs
 * only `rpcUrls` and `executorKeys` (and its tokens) for x402 payments of EIP-3009 tokens once `x402.enabled` is
 * true; the relayer adds EOA payments; the bundler, factory, paymaster, EntryPoint and paymaster signer add smart
 * wallets and deployments; the pool adds incognito; a `swap` section adds swaps. A capability a network does not
 * enable is refused on its routes (400 `validation_error`, `details.capability`) and left out of `/config`.
 */
export const CAPABILITY_SETTINGS = {
  x402: ["x402.enabled"],
  "eoa-payments": ["contracts.relayer"],
  "smart-wallets": USER_OP_SETTINGS,
  deployments: USER_OP_SETTINGS,
  incognito: [...USER_OP_SETTINGS, "contracts.privacyPool"],
  swaps: ["contracts.relayer", "swap"],
} as const satisfies Record<string, readonly string[]>;

export type Capability = keyof typeof CAPABILITY_SETTINGS;
export const CAPABILITIES = Object.keys(CAPABILITY_SETTINGS) as Capability[];

/** What a refusal calls each capability. */
export const CAPABILITY_LABELS: Record<Capability, string> = {
  x402: "x402 payments",
  "eoa-payments": "EOA payments",
  "smart-wallets": "smart-wallet payments",
  deployments: "wallet deployments",
  incognito: "incognito",
  swaps: "swaps",
};

/** The settings that only make sense together: some of them without the rest is a config problem. */
export const SMART_WALLET_SETTINGS = CAPABILITY_SETTINGS["smart-wallets"].filter((s) => s !== "contracts.relayer");

/** A setting's value in a network's config by its dotted path; false and absent both count as unset. */
export function settingOf(network: object, path: string): unknown {
  let value: unknown = network;
  for (const part of path.split(".")) value = (value as Record<string, unknown> | undefined)?.[part];
  return value === false ? undefined : value;
}

/** The settings of `capability` that `network` leaves unset (none: it is enabled there). */
export const missingSettings = (network: object, capability: Capability): string[] =>
  CAPABILITY_SETTINGS[capability].filter((path) => settingOf(network, path) === undefined);

export const hasCapability = (network: object, capability: Capability): boolean =>
  missingSettings(network, capability).length === 0;

/** The capabilities a network's config enables. */
export const capabilitiesOf = (network: object): Capability[] =>
  CAPABILITIES.filter((capability) => hasCapability(network, capability));

/** A network as the refusals need it: its name and config (a NetworkRuntime is one). */
type NamedNetwork = { name: string; config: NetworkConfig };

/**
 * The refusal of a route whose capability the network does not enable (decisions.md "Networks and paths"): 400
 * `validation_error` naming the network and the settings to configure (with their environment variables), and
 * `details.capability`.
 */
export function capabilityRefusal(network: NamedNetwork, capability: Capability, field = "network"): ApiError {
  const missing = missingSettings(network.config, capability).map((path) =>
    fieldName(`networks.${network.name}.${path}`),
  );
  return new ApiError(
    "validation_error",
    `${CAPABILITY_LABELS[capability]} are not enabled on ${network.name}: configure ${missing.join(", ")}`,
    { field, network: network.name, capability, configure: missing },
  );
}

/**
 * The refusal of a capability the network configures but the start switched off (its wiring check found why it
 * cannot work there: a router the relayer does not whitelist, a pool verifying another circuit).
 */
export function unavailableRefusal(
  network: NamedNetwork,
  capability: Capability,
  reason: string,
  field = "network",
): ApiError {
  const label = CAPABILITY_LABELS[capability];
  const verb = label.endsWith("s") ? "are" : "is";
  return new ApiError("validation_error", `${label} ${verb} unavailable on ${network.name}: ${reason}`, {
    field,
    network: network.name,
    capability,
    reason,
  });
}

/** Refuses (capabilityRefusal) unless the network enables `capability`. */
export function requireCapability(network: NamedNetwork, capability: Capability, field?: string): void {
  if (!hasCapability(network.config, capability)) throw capabilityRefusal(network, capability, field);
}

/** The relayer of a network whose EOA payments (or swaps) are enabled; else the capability's refusal. */
export function relayerOf(network: NamedNetwork, capability: Capability = "eoa-payments"): Address {
  const relayer = network.config.contracts.relayer;
  if (!relayer) throw capabilityRefusal(network, capability);
  return relayer;
}

/** A network's smart-wallet settings, typed as present; undefined where smart wallets are not enabled. */
export type SmartWalletSettings = {
  bundlerUrl: string;
  relayer: Address;
  entryPoint: Address;
  factory: Address;
  paymaster: Address;
  paymasterSigner: LocalAccount;
};

export function smartWalletSettingsOf(network: NetworkConfig): SmartWalletSettings | undefined {
  const { bundlerUrl, paymasterSigner, contracts } = network;
  const { relayer, entryPoint, factory, paymaster } = contracts;
  if (!bundlerUrl || !paymasterSigner || !relayer || !entryPoint || !factory || !paymaster) return undefined;
  return { bundlerUrl, relayer, entryPoint, factory, paymaster, paymasterSigner };
}

/** The smart-wallet settings of a network that enables them; else the refusal of `capability`. */
export function smartWalletOf(network: NamedNetwork, capability: Capability = "smart-wallets"): SmartWalletSettings {
  const settings = smartWalletSettingsOf(network.config);
  if (!settings) throw capabilityRefusal(network, capability);
  return settings;
}
