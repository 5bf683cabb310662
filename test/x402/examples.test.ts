// The x402 examples (examples/x402/) as a merchant and a buyer run them: under `node`, not Bun, against relay402
// started as an operator starts it (the start's chain reads give /supported its names and versions). Both
// merchants sell on both networks from /supported alone, offering the gas sponsoring it lists; the buyer pays the
// Express one on base (EIP-3009) and the Hono one on bsc (Permit2, its allowance from a signed approve relayed with
// the payment, funded for a buyer without BNB). The chain's balances judge.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Address, Hex } from "viem";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { startServer } from "../../src/server";
import { chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { getTestDevnet } from "../support/devnet";

const root = resolve(import.meta.dir, "..", "..");
const examples = join(root, "examples", "x402");

const relay = await startServer(
  configFromManifest(getTestDevnet().devnet.manifest, {
    port: await freePort(),
    databasePath: join(mkdtempSync(join(tmpdir(), "relay402-x402-examples-")), "relay402.sqlite"),
    logRequests: false,
    rateLimitPerMinute: 1_000_000,
  }),
  { silent: true },
);

/** Children still running (the merchants; a buyer a timed-out test left): afterAll stops them by PID. */
const running = new Set<number>();

/** `node <script>` to its end, with `env` added to this process's; its exit code and output. */
async function node(script: string, env: Record<string, string>) {
  const child = Bun.spawn(["node", join(examples, script)], {
    cwd: root,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  running.add(child.pid);
  try {
    const [code, out, err] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    return { code, out, err };
  } finally {
    running.delete(child.pid);
  }
}

/** A merchant example listening on a free port, once it has printed its URL; stopped in afterAll. */
async function merchant(script: string, payTo: Address, env: Record<string, string> = {}) {
  const port = await freePort();
  const child = Bun.spawn(["node", join(examples, script)], {
    cwd: root,
    env: { ...process.env, RELAY402_URL: relay.url, PAY_TO: payTo, PORT: String(port), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  running.add(child.pid);
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("/report, selling:")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited: ${out}${await new Response(child.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return `http://127.0.0.1:${port}/report`;
}

afterAll(async () => {
  for (const pid of running) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  await relay.stop();
});

type SupportedAsset = {
  asset: Address;
  symbol: string;
  decimals: number;
  name: string | null;
  version: string | null;
  assetTransferMethod: "eip3009" | "permit2";
};
type ConfigToken = {
  address: Address;
  decimals: number;
  eip712: { name: string; version: string } | null;
  x402: { assetTransferMethod: string } | null;
};
const getJson = async (path: string) => (await fetch(`${relay.url}${path}`)).json() as Promise<any>;
const CAIP2 = { base: "eip155:8453", bsc: "eip155:56" } as const;

/** The last line a buyer prints: what it paid and what it got. */
const buyerResult = (out: string) =>
  JSON.parse(out.trim().split("\n").at(-1)!) as {
    status: number;
    body: string;
    payer: Address;
    approval: Hex | null;
    sponsoring: string[];
    settlement: { success: boolean; transaction: Hex; network: string } | null;
  };

describe("x402 merchants and a buyer on x402's own packages, run by node, relay402 as the facilitator", () => {
  test("/supported and /config give every accepted asset alike: address, decimals, name and version, method", async () => {
    const [supported, config] = await Promise.all([getJson("/supported"), getJson("/config")]);
    for (const network of ["base", "bsc"] as const) {
      const kind = supported.kinds.find((k: { network: string }) => k.network === CAIP2[network]);
      const assets = kind.extra.assets as SupportedAsset[];
      const tokens = config.networks[network].tokens as ConfigToken[];
      const served = tokens.filter((token) => token.x402 !== null);
      expect(served.map((token) => token.address)).toEqual(assets.map((asset) => asset.asset));
      for (const asset of assets) {
        const token = served.find((candidate) => candidate.address === asset.asset)!;
        expect(token.decimals).toBe(asset.decimals);
        expect(token.eip712).toEqual(asset.name === null ? null : { name: asset.name, version: asset.version! });
        expect(token.x402).toEqual({ assetTransferMethod: asset.assetTransferMethod });
      }
    }
    // Read from the chain at start: the devnet's USDC has the EIP-712 domain of Base's, its USDT none.
    const base = supported.kinds.find((k: { network: string }) => k.network === CAIP2.base).extra.assets;
    expect(base.find((asset: SupportedAsset) => asset.symbol === "USDC")).toEqual({
      asset: chainOf("base").token.address,
      symbol: "USDC",
      decimals: 6,
      name: "USD Coin",
      version: "2",
      assetTransferMethod: "eip3009",
    });
    const bsc = supported.kinds.find((k: { network: string }) => k.network === CAIP2.bsc).extra.assets;
    expect(bsc.find((asset: SupportedAsset) => asset.symbol === "USDT")).toMatchObject({
      asset: chainOf("bsc").token.address,
      decimals: 18,
      assetTransferMethod: "permit2",
    });
  });

  test("both merchants sell on both networks; the buyer pays Express on base and Hono on bsc, exactly the price", async () => {
    const payTo = { express: randomAddress(), hono: randomAddress() };
    const [expressUrl, honoUrl] = await Promise.all([
      merchant("merchant-express.mjs", payTo.express),
      merchant("merchant-hono.mjs", payTo.hono),
    ]);

    // Each 402 asks for the price on base (USDC, EIP-3009, name and version) and on bsc (USDT, Permit2).
    for (const url of [expressUrl, honoUrl]) {
      const unpaid = await fetch(url);
      expect(unpaid.status).toBe(402);
      const asked = JSON.parse(Buffer.from(unpaid.headers.get("PAYMENT-REQUIRED")!, "base64").toString());
      expect(asked.accepts.map((a: any) => [a.network, a.asset, a.amount, a.extra])).toEqual([
        [
          CAIP2.base,
          chainOf("base").token.address,
          "10000",
          { assetTransferMethod: "eip3009", name: "USD Coin", version: "2" },
        ],
        [CAIP2.bsc, chainOf("bsc").token.address, (10n ** 16n).toString(), { assetTransferMethod: "permit2" }],
      ]);
      // The gas sponsoring relay402 lists in /supported, offered to the buyer.
      expect(Object.keys(asked.extensions ?? {}).sort()).toEqual([
        "eip2612GasSponsoring",
        "erc20ApprovalGasSponsoring",
      ]);
    }

    const buyers = { base: await freshPayer("base"), bsc: await freshPayer("bsc") };
    const before = {
      base: await tokenBalance("base", chainOf("base").token.address, buyers.base.address),
      bsc: await tokenBalance("bsc", chainOf("bsc").token.address, buyers.bsc.address),
    };
    const buy = (network: "base" | "bsc", url: string) =>
      node("buyer.mjs", {
        URL: url,
        NETWORK: network,
        RPC_URL: chainOf(network).info.rpcUrl,
        PRIVATE_KEY: buyers[network].key,
      });
    const [onBase, onBsc] = await Promise.all([buy("base", expressUrl), buy("bsc", honoUrl)]);
    expect([onBase.code, onBase.err]).toEqual([0, ""]);
    expect([onBsc.code, onBsc.err]).toEqual([0, ""]);

    const base = buyerResult(onBase.out);
    expect(JSON.parse(base.body)).toEqual({ report: "paid content", servedBy: "express" });
    expect(base.approval).toBeNull(); // EIP-3009: nothing to approve, no gas spent
    expect(base.settlement).toMatchObject({ success: true, network: CAIP2.base });
    expect(await tokenBalance("base", chainOf("base").token.address, payTo.express)).toBe(10_000n);
    expect(await tokenBalance("base", chainOf("base").token.address, buyers.base.address)).toBe(before.base - 10_000n);

    const bsc = buyerResult(onBsc.out);
    expect(JSON.parse(bsc.body)).toEqual({ report: "paid content", servedBy: "hono" });
    // Permit2 with the merchant's sponsoring: the buyer sent nothing; its signed approve came with the payment.
    expect(bsc.approval).toBeNull();
    expect(bsc.sponsoring).toEqual(["erc20ApprovalGasSponsoring"]);
    expect(bsc.settlement).toMatchObject({ success: true, network: CAIP2.bsc });
    expect(await tokenBalance("bsc", chainOf("bsc").token.address, payTo.hono)).toBe(10n ** 16n);
    expect(await tokenBalance("bsc", chainOf("bsc").token.address, buyers.bsc.address)).toBe(before.bsc - 10n ** 16n);

    // A Permit2 buyer with tokens and no BNB pays too: relay402 funds its signed approve (exactly the approve's
    // gas limit × max fee, of which what the approve did not burn stays with it) and settles; for a price of at
    // least the token's fundedApproveMinPayment (0.1 by default; relay402 refuses to fund dust).
    const fundedShop = randomAddress();
    const fundedUrl = await merchant("merchant-express.mjs", fundedShop, { PRICE: "0.1", NETWORKS: "bsc" });
    const broke = await freshPayer("bsc");
    await chainOf("bsc").test.setBalance({ address: broke.address, value: 0n });
    const brokeBefore = await tokenBalance("bsc", chainOf("bsc").token.address, broke.address);
    const funded = await node("buyer.mjs", {
      URL: fundedUrl,
      MAX_PRICE: "0.1",
      NETWORK: "bsc",
      RPC_URL: chainOf("bsc").info.rpcUrl,
      PRIVATE_KEY: broke.key,
    });
    expect([funded.code, funded.err]).toEqual([0, ""]);
    expect(buyerResult(funded.out)).toMatchObject({ approval: null, sponsoring: ["erc20ApprovalGasSponsoring"] });
    expect(await tokenBalance("bsc", chainOf("bsc").token.address, fundedShop)).toBe(10n ** 17n);
    expect(await tokenBalance("bsc", chainOf("bsc").token.address, broke.address)).toBe(brokeBefore - 10n ** 17n);

    // From a merchant that offers no sponsoring, a buyer without BNB for its approve is told so, and pays nothing.
    const unsponsored = randomAddress();
    const plainUrl = await merchant("merchant-hono.mjs", unsponsored, { GAS_SPONSORING: "off" });
    const poor = await freshPayer("bsc");
    await chainOf("bsc").test.setBalance({ address: poor.address, value: 0n });
    const refused = await node("buyer.mjs", {
      URL: plainUrl,
      NETWORK: "bsc",
      RPC_URL: chainOf("bsc").info.rpcUrl,
      PRIVATE_KEY: poor.key,
    });
    expect(refused.code).toBe(1);
    expect(refused.err.trim()).toBe(
      `${poor.address} has 0 BNB on bsc, not enough for the gas of its one-time Permit2 approve of ` +
        `${chainOf("bsc").token.address}: send it a little BNB, then run this again. The payment itself costs it ` +
        "no gas (relay402 sends it); only this approve does, once per token, where the merchant offers no gas " +
        "sponsoring.",
    );
    expect(await tokenBalance("bsc", chainOf("bsc").token.address, unsponsored)).toBe(0n);

    // An unknown NETWORK is named, with the known ones; no stack, no TypeError.
    const unknown = await node("buyer.mjs", { URL: honoUrl, NETWORK: "solana", RPC_URL: "x", PRIVATE_KEY: poor.key });
    expect([unknown.code, unknown.err.trim()]).toEqual([1, 'unknown network "solana": use one of base, bsc']);
  }, 120_000);
});
