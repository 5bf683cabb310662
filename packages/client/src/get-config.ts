import type { Address } from "viem";
import type { Relay402Client } from "./client.js";
import { Relay402ClientError } from "./errors.js";
import type { NetworkName } from "./types.js";

export type TokenConfig = {
  symbol: string;
  address: Address;
  decimals: number;
  eip3009: boolean;
  /** The token's own EIP-2612 permit: a payer without gas can approve the relayer by signature. */
  eip2612?: boolean;
  /** The token's EIP-712 name and version as the service read them (null: the token tells none). */
  eip712?: { name: string; version: string } | null;
  fees: {
    feeBps: number;
    minFee: string;
    deploymentFeePerWallet: string;
    /** Where incognito is on: the unshield fee is `max(unshieldMinFee, ceil(withdrawAmount × unshieldFeeBps / 10000))`. */
    unshieldFeeBps?: number;
    unshieldMinFee?: string;
    /** Where swaps are on: a swap selling this token pays `max(swapMinFee, ceil(sellAmount × swapFeeBps / 10000))`. */
    swapFeeBps?: number;
    swapMinFee?: string;
  };
  minPaymentValue: string;
  /** The smallest payment a payer without native coins may make with a funded approve (absent: an older service). */
  fundedApproveMinPayment?: string;
};

/** What the client uses of one network of `GET /config`. */
export type NetworkConfig = {
  chainId: number;
  eip712Domain: { name: string; version: string; chainId: number; verifyingContract: Address } | null;
  contracts: { relayer: Address; factory: Address; paymaster: Address; entryPoint: Address };
  feeRecipient: Address;
  tokens: TokenConfig[];
  limits: { validBeforeMarginSeconds: number };
  /**
   * The caps a payer's signed approve must keep for the service to fund its gas and broadcast it (`maxFeePerGas` in
   * wei); absent from an older service, which funds none.
   */
  fundedApprove?: { enabled: boolean; maxGas: number; maxFeePerGas: string };
  /** The privacy pool and the circuit's setup id; null (or absent) where incognito is off. */
  incognito?: { pool: Address; circuitId: string } | null;
  /** The whitelisted DEX routers (the only ones a swap may go through); null (or absent) where swaps are off. */
  swap?: {
    routers: { name: string; address: Address; kind: "v2" | "v3" }[];
    connectors: Address[];
    wrappedNative: Address;
  } | null;
};

export type ServiceConfig = { version: string; networks: Partial<Record<NetworkName, NetworkConfig>> };

/** `GET /config`: every enabled network's contracts, tokens, fees and the relayer's EIP-712 domain. */
export function getConfig(client: Relay402Client): Promise<ServiceConfig> {
  return client.get<ServiceConfig>("/config");
}

/** One network of `/config`, with its relayer domain read (the service reads it through EIP-5267). */
export async function getNetworkConfig(
  client: Relay402Client,
  network: NetworkName,
): Promise<NetworkConfig & { eip712Domain: NonNullable<NetworkConfig["eip712Domain"]> }> {
  const config = (await getConfig(client)).networks[network];
  if (!config) throw new Relay402ClientError("unexpected_response", `network ${network} is not enabled on the service`);
  if (!config.eip712Domain) {
    throw new Relay402ClientError("unexpected_response", `the service could not read the relayer domain on ${network}`);
  }
  return config as NetworkConfig & { eip712Domain: NonNullable<NetworkConfig["eip712Domain"]> };
}

/** The configured token at `address` on this network. */
export function tokenOf(config: NetworkConfig, address: Address): TokenConfig {
  const token = config.tokens.find((candidate) => candidate.address.toLowerCase() === address.toLowerCase());
  if (!token)
    throw new Relay402ClientError("validation_error", `token ${address} is not configured`, { field: "token" });
  return token;
}
