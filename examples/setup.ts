// What every example needs: where the service and the chain are, and a funded key. From the options a test
// passes, else the environment (RELAY402_URL, RPC_URL, PRIVATE_KEY, ADMIN_API_KEY, NETWORK), else the devnet
// manifest that `bun run dev` writes (.devnet/devnet.json: its first payer account).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRelay402Client, getNetworkConfig, Relay402ClientError } from "@relay402/client";
import { NETWORKS, type NetworkName } from "@relay402/client/wire/networks";
import { createPublicClient, createWalletClient, defineChain, type Hex, http, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

export type ExampleOptions = {
  serviceUrl: string;
  rpcUrl: string;
  privateKey: Hex;
  network: NetworkName;
  adminApiKey?: string;
  /** Silences the examples' output (the test suite runs them). */
  quiet?: boolean;
};

/** A refusal of the example's settings or of its run: printed as its message alone (runExample). */
export class ExampleError extends Error {}

/** The network an example runs on: NETWORK (default bsc), one of relay402's network names. */
export function networkOf(name: string | undefined = "bsc"): NetworkName {
  if (!(NETWORKS as readonly string[]).includes(name))
    throw new ExampleError(`unknown NETWORK "${name}": use one of ${NETWORKS.join(", ")}`);
  return name as NetworkName;
}

/** The native coin of each network, which pays the gas of the one transaction an EOA payer sends (its approve). */
const NATIVE: Record<NetworkName, string> = { bsc: "BNB", "bsc-testnet": "tBNB", base: "ETH", "base-sepolia": "ETH" };

export function defaultOptions(): ExampleOptions {
  const path = join(import.meta.dir, "..", ".devnet", "devnet.json");
  const manifest = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
  const network = networkOf(process.env.NETWORK);
  if (!process.env.RPC_URL && manifest && !manifest.networks[network])
    throw new ExampleError(`the devnet has no ${network}: set RPC_URL (and RELAY402_URL, PRIVATE_KEY) for it`);
  const options = {
    serviceUrl: process.env.RELAY402_URL ?? manifest?.service,
    rpcUrl: process.env.RPC_URL ?? manifest?.networks[network].rpcUrl,
    privateKey: process.env.PRIVATE_KEY ?? manifest?.accounts[0].privateKey,
    adminApiKey: process.env.ADMIN_API_KEY ?? manifest?.adminApiKey,
    network,
  };
  if (!options.serviceUrl || !options.rpcUrl || !options.privateKey) {
    throw new ExampleError("start the devnet (bun run dev) or set RELAY402_URL, RPC_URL and PRIVATE_KEY");
  }
  return options;
}

/** The relay402 client, viem clients for the key, and the network's first token from /config. */
export async function connect(options: ExampleOptions) {
  const relay402 = createRelay402Client({ url: options.serviceUrl, adminApiKey: options.adminApiKey });
  const config = await getNetworkConfig(relay402, options.network);
  const chain = defineChain({
    id: config.chainId,
    name: options.network,
    nativeCurrency: { name: NATIVE[options.network], symbol: NATIVE[options.network], decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const signer = createWalletClient({ chain, transport: http(), account: privateKeyToAccount(options.privateKey) });
  const publicClient = createPublicClient({ chain, transport: http() });
  const log = (...line: unknown[]) => options.quiet || console.log(...line);
  return { relay402, config, signer, publicClient, token: config.tokens[0]!, log };
}

export const randomSalt = (): Hex => toHex(crypto.getRandomValues(new Uint8Array(32)));

/**
 * Runs an example as a script with the options of its environment. A refusal (of the settings, or the client's: no
 * gas for an approve, a network the service does not serve) is printed as its message, without a stack, and the
 * process exits 1; anything else is thrown as it is.
 */
export async function runExample(main: (options: ExampleOptions) => Promise<unknown>): Promise<void> {
  try {
    await main(defaultOptions());
  } catch (error) {
    if (!(error instanceof ExampleError || error instanceof Relay402ClientError)) throw error;
    console.error(error.message);
    process.exitCode = 1;
  }
}
