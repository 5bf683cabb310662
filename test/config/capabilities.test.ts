import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { encodeConfig, validateConfig } from "../../src/config/load";
import type { ConfigInput } from "../../src/config/schema";
import { startServer } from "../../src/server";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { getTestDevnet } from "../support/devnet";
import { baseRequirements, x402Buyer } from "../x402/support";

const dir = mkdtempSync(join(tmpdir(), "relay402-capabilities-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The devnet config as a payments-only operator writes it: RPC URLs, executor keys, the relayer, tokens and x402;
 * no bundler, factory, paymaster, EntryPoint, paymaster signer, pool or swaps.
 */
async function paymentsOnlyConfig(options: { x402OnlyBase?: boolean } = {}) {
  const config = encodeConfig(
    configFromManifest(getTestDevnet().devnet.manifest, {
      port: await freePort(),
      databasePath: join(mkdtempSync(join(dir, "db-")), "relay402.sqlite"),
      logRequests: false,
    }),
  ) as ConfigInput;
  for (const name of ["bsc", "base"] as const) {
    const network = config.networks[name];
    if (!network) throw new Error(`no ${name}`);
    const { bundlerUrl: _b, paymasterSignerKey: _p, swap: _s, contracts, ...rest } = network;
    const relayer = options.x402OnlyBase && name === "base" ? {} : { relayer: contracts?.relayer };
    config.networks[name] = { ...rest, contracts: relayer, x402: { enabled: true } };
  }
  return validateConfig(config);
}

const json = (response: Response) => response.json() as Promise<any>;

describe("a payments-only network (no bundler, factory, paymaster or signer)", async () => {
  const service = await startServer(await paymentsOnlyConfig(), { silent: true });
  afterAll(() => service.stop());
  const post = (path: string, body: unknown) =>
    fetch(`${service.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  test("starts, and /health, /config and /supported show only EOA and x402 payments", async () => {
    const health = await fetch(`${service.url}/health`).then(json);
    expect(health.status).toBe("ok");
    expect(health.networks.base.capabilities).toEqual(["x402", "eoa-payments"]);
    expect(health.networks.base.bundler).toBeUndefined();
    expect(health.networks.base.paymaster).toBeNull();
    const config = await fetch(`${service.url}/config`).then(json);
    expect(config.networks.bsc.capabilities).toEqual(["x402", "eoa-payments"]);
    expect(Object.keys(config.networks.bsc.contracts)).toEqual(["relayer"]);
    expect(config.networks.bsc.incognito).toBeNull();
    expect(config.networks.bsc.swap).toBeNull();
    const supported = await fetch(`${service.url}/supported`).then(json);
    expect(supported.kinds.map((kind: { network: string }) => kind.network)).toContain("eip155:8453");
  });

  test("serves an EOA payment through the relayer", async () => {
    const payer = await freshPayer("bsc");
    await approveRelayer("bsc", payer.key, 10n ** 24n);
    const to = randomAddress();
    const body = await signedPayment({ network: "bsc", key: payer.key, to, value: 10n ** 18n });
    const settled = await post("/settle", body).then(json);
    expect(settled.success).toBe(true);
    expect(await tokenBalance("bsc", chainOf("bsc").token.address, to)).toBe(10n ** 18n);
  });

  test("serves an x402 payment of an EIP-3009 token", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(1_250_000n);
    const payload = await buyer.pay(requirements);
    const settled = await post("/settle", {
      x402Version: 2,
      paymentPayload: payload,
      paymentRequirements: requirements,
    }).then(json);
    expect(settled.success).toBe(true);
    expect(await tokenBalance("base", chainOf("base").token.address, requirements.payTo as `0x${string}`)).toBe(
      1_250_000n,
    );
  });

  test("refuses a smart-wallet payment, naming the network and what to configure", async () => {
    const response = await post("/wallet/verify", {
      walletAddress: randomAddress(),
      transactions: [{ to: randomAddress(), amount: "1000", token: chainOf("base").token.address }],
      paymentRequirements: { network: "base" },
    });
    expect(response.status).toBe(400);
    const configure = [
      "networks.base.bundlerUrl (BASE_BUNDLER_URL)",
      "networks.base.contracts.entryPoint",
      "networks.base.contracts.factory",
      "networks.base.contracts.paymaster",
      "networks.base.paymasterSignerKey (BASE_PAYMASTER_SIGNER_KEY)",
    ];
    expect(await json(response)).toMatchObject({
      code: "validation_error",
      message: `smart-wallet payments are not enabled on base: configure ${configure.join(", ")}`,
      details: { field: "paymentRequirements.network", network: "base", capability: "smart-wallets", configure },
    });
    const quote = await post("/deploy/quote", {
      network: "bsc",
      deployment: {
        ownerAddress: randomAddress(),
        salts: [`0x${"01".padStart(64, "0")}`],
        token: chainOf("bsc").token.address,
      },
    });
    expect(quote.status).toBe(400);
    expect((await json(quote)).details).toMatchObject({ capability: "deployments", network: "bsc", field: "network" });
  });
});

describe("an x402-only network: RPC URLs, executor keys, tokens and x402.enabled, no contract at all", async () => {
  const service = await startServer(await paymentsOnlyConfig({ x402OnlyBase: true }), { silent: true });
  afterAll(() => service.stop());

  test("serves x402 payments of its EIP-3009 token and refuses EOA payments, naming the relayer to configure", async () => {
    const health = await fetch(`${service.url}/health`).then(json);
    expect([health.status, health.networks.base.capabilities, health.networks.base.relayer]).toEqual([
      "ok",
      ["x402"],
      null,
    ]);
    const buyer = await x402Buyer();
    const requirements = baseRequirements(1_000_000n);
    const settled = await fetch(`${service.url}/settle`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        x402Version: 2,
        paymentPayload: await buyer.pay(requirements),
        paymentRequirements: requirements,
      }),
    }).then(json);
    expect(settled.success).toBe(true);
    const payer = await freshPayer("base");
    const body = await signedPayment({ network: "base", key: payer.key, to: randomAddress(), value: 1n });
    const refused = await fetch(`${service.url}/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({
      code: "validation_error",
      message: "EOA payments are not enabled on base: configure networks.base.contracts.relayer",
      details: { capability: "eoa-payments", network: "base", field: "paymentRequirements.network" },
    });
    const config = await fetch(`${service.url}/config`).then(json);
    expect([config.networks.base.spender, config.networks.base.eip712Domain]).toEqual([null, null]);
  });
});
