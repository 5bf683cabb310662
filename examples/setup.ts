// What every example needs: where the service and the chain are, and a funded key. From the options a test
// passes, else the environment (RELAY402_URL, RPC_URL, PRIVATE_KEY, ADMIN_API_KEY, NETWORK), else the devnet
// manifest that `bun run dev` writes (.devnet/devnet.json: its first payer account).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRelay402Client, getNetworkConfig, type NetworkName } from "@relay402/client";
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

export function defaultOptions(): ExampleOptions {
  const path = join(import.meta.dir, "..", ".devnet", "devnet.json");
  const manifest = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
  const network = (process.env.NETWORK ?? "bsc") as NetworkName;
  const options = {
    serviceUrl: process.env.RELAY402_URL ?? manifest?.service,
    rpcUrl: process.env.RPC_URL ?? manifest?.networks[network].rpcUrl,
    privateKey: process.env.PRIVATE_KEY ?? manifest?.accounts[0].privateKey,
    adminApiKey: process.env.ADMIN_API_KEY ?? manifest?.adminApiKey,
    network,
  };
  if (!options.serviceUrl || !options.rpcUrl || !options.privateKey) {
    throw new Error("start the devnet (bun run dev) or set RELAY402_URL, RPC_URL and PRIVATE_KEY");
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
    nativeCurrency: { name: "native", symbol: "NATIVE", decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const signer = createWalletClient({ chain, transport: http(), account: privateKeyToAccount(options.privateKey) });
  const publicClient = createPublicClient({ chain, transport: http() });
  const log = (...line: unknown[]) => options.quiet || console.log(...line);
  return { relay402, config, signer, publicClient, token: config.tokens[0]!, log };
}

export const randomSalt = (): Hex => toHex(crypto.getRandomValues(new Uint8Array(32)));
