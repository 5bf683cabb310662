// What the x402 examples share. A merchant's price is written from relay402's own answer: GET /supported lists, per network, every
// asset relay402 settles with its address, decimals, EIP-712 name and version (read from the chain at relay402's
// start) and how x402 moves it (`assetTransferMethod`: the token's own EIP-3009, or Permit2). A price names the asset
// by address and carries those in `extra`; x402's `price: "$0.01"` only knows its own default assets (USDC on Base,
// none on BNB Chain), and never the devnet's.
import { HTTPFacilitatorClient } from "@x402/core/server";
import { declareEip2612GasSponsoringExtension, declareErc20ApprovalGasSponsoringExtension } from "@x402/extensions";
import { parseUnits } from "viem";

/** The networks the examples know, by the name relay402's config gives them, and the asset each sells in. */
export const NETWORKS = {
  base: { network: "eip155:8453", symbol: "USDC", native: "ETH" },
  bsc: { network: "eip155:56", symbol: "USDT", native: "BNB" },
};

/** The example's settings of a network name (NETWORK, NETWORKS): a clear refusal for one it does not know. */
export function networkNamed(name) {
  if (!Object.hasOwn(NETWORKS, name)) {
    throw new Error(`unknown network "${name}": use one of ${Object.keys(NETWORKS).join(", ")}`);
  }
  return NETWORKS[name];
}

/** Runs an example's main: a refusal is printed as its message alone (no stack), and the process exits 1. */
export function run(main) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}

/** The process's setting `name`, or a message that says which one is missing. */
export function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** relay402's GET /supported, read as x402's HTTPFacilitatorClient would (the same path, the same JSON). */
export async function readSupported(relay402Url) {
  const response = await fetch(new URL("/supported", relay402Url));
  if (!response.ok) throw new Error(`relay402 answered GET /supported with ${response.status}`);
  return response.json();
}

/**
 * One x402 `accepts` entry for each network: `price` (in the asset's units, e.g. "0.01") of the network's asset, as
 * /supported describes it. A network relay402 does not serve, or an asset it does not take there, is refused here,
 * before any buyer sees the price.
 */
export function acceptsFrom(supported, { networks, price, payTo }) {
  return networks.map((name) => {
    const { network, symbol } = networkNamed(name);
    const kind = supported.kinds.find((k) => k.x402Version === 2 && k.scheme === "exact" && k.network === network);
    if (!kind) throw new Error(`relay402 does not serve x402 on ${name} (${network}): see its GET /supported`);
    const asset = kind.extra.assets.find((a) => a.symbol === symbol);
    if (!asset) throw new Error(`relay402 does not take ${symbol} on ${name}: see its GET /supported`);
    // EIP-3009: the buyer signs the token's own TransferWithAuthorization, under its EIP-712 name and version.
    // Permit2: the buyer signs a Permit2 transfer to x402's proxy; the token's name and version play no part.
    const extra = { assetTransferMethod: asset.assetTransferMethod };
    if (asset.name !== null) extra.name = asset.name;
    if (asset.version !== null) extra.version = asset.version;
    return {
      scheme: "exact",
      network,
      payTo,
      price: { asset: asset.asset, amount: parseUnits(price, asset.decimals).toString(), extra },
      maxTimeoutSeconds: 300,
    };
  });
}

/**
 * The gas sponsoring a route offers its buyers, as x402 extensions in its 402 answers: those relay402 performs (GET
 * /supported's `extensions`). With them a buyer holding only the token pays on its first purchase too: its Permit2
 * allowance comes from an EIP-2612 permit (`eip2612GasSponsoring`) or from an approve it signs and relay402 funds and
 * broadcasts (`erc20ApprovalGasSponsoring`), instead of an approve it sends and pays for. GAS_SPONSORING=off offers
 * none (the buyer then approves Permit2 itself).
 */
export function sponsoringFrom(supported, offer = process.env.GAS_SPONSORING !== "off") {
  const listed = offer ? (supported.extensions ?? []) : [];
  return {
    ...(listed.includes("eip2612GasSponsoring") ? declareEip2612GasSponsoringExtension() : {}),
    ...(listed.includes("erc20ApprovalGasSponsoring") ? declareErc20ApprovalGasSponsoringExtension() : {}),
  };
}

/**
 * relay402 as the merchant's facilitator: /verify, /settle and /supported at its root. A merchant key, if the
 * operator gave you one (it lifts relay402's per-IP rate limit), goes in `x-api-key` on every call.
 */
export function relay402Facilitator(relay402Url, apiKey = process.env.MERCHANT_API_KEY) {
  if (!apiKey) return new HTTPFacilitatorClient({ url: relay402Url });
  const headers = { "x-api-key": apiKey };
  return new HTTPFacilitatorClient({
    url: relay402Url,
    createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
  });
}

/** The merchant's settings from its environment, its facilitator, its price on every network it sells on, its sponsoring. */
export async function merchantSettings() {
  const relay402Url = required("RELAY402_URL");
  const payTo = required("PAY_TO");
  const networks = (process.env.NETWORKS ?? "base,bsc").split(",").map((name) => name.trim());
  for (const name of networks) networkNamed(name);
  const supported = await readSupported(relay402Url);
  const accepts = acceptsFrom(supported, { networks, price: process.env.PRICE ?? "0.01", payTo });
  return {
    facilitator: relay402Facilitator(relay402Url),
    accepts,
    extensions: sponsoringFrom(supported),
    port: Number(process.env.PORT ?? 4021),
    host: process.env.HOST ?? "127.0.0.1",
  };
}
