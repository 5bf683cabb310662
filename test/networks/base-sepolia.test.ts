// A network other than bsc and base, end to end: a devnet chain with base-sepolia's chain id (84532) and every
// relay402 contract, a service configured with it alone under its preset name, and a real x402 payment on it.
// The run's bsc/base devnet is not needed, so this file starts only its own chain.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { erc20Abi } from "@relay402/client/wire/abis";
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { createPublicClient, type Hex, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { buildContracts } from "../../scripts/devnet/build";
import { DEVNET_ADMIN_API_KEY, devnetKeys } from "../../scripts/devnet/keys";
import { devnetNetworkConfig } from "../../scripts/devnet/service-config";
import { type DevnetNetwork, startDevnetNetwork } from "../../scripts/devnet/start";
import { CONFIG_DEFAULTS, validateConfig } from "../../src/config/load";
import { NETWORKS } from "../../src/networks";
import { serviceOf } from "../support/service-of";

let sepolia: Awaited<ReturnType<typeof startDevnetNetwork>>;
let service: ReturnType<typeof serviceOf>;
let network: DevnetNetwork;

const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  buildContracts();
  sepolia = await startDevnetNetwork("base-sepolia", { quiet: true });
  network = sepolia.network;
  const config = validateConfig({
    ...CONFIG_DEFAULTS,
    mode: "devnet",
    adminApiKey: DEVNET_ADMIN_API_KEY,
    databasePath: join(mkdtempSync(join(tmpdir(), "relay402-test-")), "relay402.sqlite"),
    rateLimitPerMinute: 1_000_000,
    logRequests: false,
    networks: { "base-sepolia": devnetNetworkConfig(network) },
  });
  service = serviceOf(config);
}, 120_000);

afterAll(async () => {
  try {
    service?.stop();
  } finally {
    await sepolia?.stop();
  }
}, 60_000);

const usdc = () => network.tokens.USDC?.address as `0x${string}`;

describe("a service configured with base-sepolia only", () => {
  test("/config lists base-sepolia with its chain id, and no other network", async () => {
    const config = await service.get("/config");
    expect(config.status).toBe(200);
    expect(Object.keys(config.body.networks)).toEqual(["base-sepolia"]);
    expect(config.body.networks["base-sepolia"].chainId).toBe(84532);
    expect(config.body.networks["base-sepolia"].eip712Domain).toMatchObject({ chainId: 84532 });
  });

  test("/supported names it by its CAIP-2 id (x402 v2) and its x402 v1 name", async () => {
    const supported = await service.get("/supported");
    expect(supported.status).toBe(200);
    expect(
      supported.body.kinds.map(({ x402Version, scheme, network }: Record<string, unknown>) => ({
        x402Version,
        scheme,
        network,
      })),
    ).toEqual([
      { x402Version: 2, scheme: "exact", network: "eip155:84532" },
      { x402Version: 1, scheme: "exact", network: "base-sepolia" },
    ]);
    // Each kind names the assets it settles on that chain, the network's USDC among them.
    for (const kind of supported.body.kinds)
      expect(kind.extra.assets.map((asset: { asset: string }) => asset.asset)).toContain(usdc());
  });

  test("/health reports base-sepolia's chain, and no other network", async () => {
    const health = await service.get("/health");
    expect(Object.keys(health.body.networks)).toEqual(["base-sepolia"]);
    expect(health.body.networks["base-sepolia"]).toMatchObject({ chainId: 84532, rpc: "ok", bundler: "ok" });
  });

  test("/wallet/:owner/master has one key, base-sepolia", async () => {
    const master = await service.get(`/wallet/${randomAddress()}/master`);
    expect(master.status).toBe(200);
    expect(Object.keys(master.body.deployments)).toEqual(["base-sepolia"]);
  });

  test("an unknown network name is refused naming the allowed values; a known one not configured, naming the enabled", async () => {
    const body = (name: string) => ({
      paymentPayload: {
        token: usdc(),
        payload: {
          authorization: {
            from: randomAddress(),
            to: randomAddress(),
            value: "1",
            validAfter: 0,
            validBefore: 2 ** 31,
            nonce: `0x${"11".repeat(32)}`,
          },
          signature: `0x${"22".repeat(65)}`,
        },
      },
      paymentRequirements: { network: name, relayerContract: network.relayer },
    });
    const unknown = await service.post("/verify", body("sepolia"));
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("validation_error");
    expect(unknown.body.details.field).toBe("paymentRequirements.network");
    expect(unknown.body.message).toContain(`"sepolia" is not one of ${NETWORKS.join(", ")}`);

    const notEnabled = await service.post("/verify", body("base"));
    expect(notEnabled.status).toBe(400);
    expect(notEnabled.body.message).toBe("network not enabled: base (valid: base-sepolia)");
    expect(notEnabled.body.details).toEqual({ field: "paymentRequirements.network", validNetworks: ["base-sepolia"] });

    const query = await service.get(`/wallet/${randomAddress()}?network=base-goerli`);
    expect(query.status).toBe(400);
    expect(query.body.details.field).toBe("network");
    expect(query.body.message).toContain(`"base-goerli" is not one of ${NETWORKS.join(", ")}`);
  });

  test("an x402 v2 payment on eip155:84532 verifies and settles on that chain; v1 names it base-sepolia", async () => {
    const payer = privateKeyToAccount(devnetKeys.payers[0] as Hex);
    const client = registerExactEvmScheme(new x402Client(), { signer: payer });
    client.setSpendControls({ allowedAssets: true });
    const requirements: PaymentRequirements = {
      scheme: "exact",
      network: "eip155:84532",
      asset: usdc(),
      amount: "1500000",
      payTo: randomAddress(),
      maxTimeoutSeconds: 300,
      // The devnet's USDC stand-in signs under the domain of Base's (contracts/test-tokens/TestUSDC.sol).
      extra: { name: "USD Coin", version: "2" },
    };
    const resource = { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" };
    const paymentPayload = await client.createPaymentPayload({ x402Version: 2, resource, accepts: [requirements] });
    const body = { x402Version: 2, paymentPayload, paymentRequirements: requirements };

    const verified = await service.post("/verify", body);
    expect(verified.body).toMatchObject({ isValid: true, payer: payer.address });
    const settled = await service.post("/settle", body);
    expect(settled.body).toMatchObject({ success: true, network: "eip155:84532", payer: payer.address });

    const chain = createPublicClient({ transport: http(network.rpcUrl) });
    expect(await chain.getChainId()).toBe(84532);
    const receipt = await chain.getTransactionReceipt({ hash: settled.body.transaction });
    expect(receipt.status).toBe("success");
    const paid = await chain.readContract({
      address: usdc(),
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [requirements.payTo as `0x${string}`],
    });
    expect(paid).toBe(1_500_000n);

    // The same kind of payment in x402 v1's shapes names the network "base-sepolia".
    const v1Requirements = {
      scheme: "exact",
      network: "base-sepolia",
      maxAmountRequired: "700000",
      resource: resource.url,
      description: resource.description,
      mimeType: resource.mimeType,
      payTo: randomAddress(),
      maxTimeoutSeconds: 300,
      asset: usdc(),
      extra: { name: "USD Coin", version: "2" },
    };
    const v1Payload = await client.createPaymentPayload({ x402Version: 1, accepts: [v1Requirements] } as never);
    const v1 = await service.post("/verify", {
      x402Version: 1,
      paymentPayload: v1Payload,
      paymentRequirements: v1Requirements,
    });
    expect(v1.body).toMatchObject({ isValid: true, payer: payer.address });
  });
});
