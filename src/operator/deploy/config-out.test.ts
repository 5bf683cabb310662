import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey } from "viem/accounts";
import { loadConfig } from "../../config/load";
import { secretEnvironment, writeConfig } from "./config-out";
import { deployNetwork, type Feature } from "./network";

const dir = mkdtempSync(join(tmpdir(), "relay402-config-out-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const addresses = {
  Relayer: "0x1000000000000000000000000000000000000001",
  WalletFactory: "0x1000000000000000000000000000000000000002",
  Paymaster: "0x1000000000000000000000000000000000000003",
} as const;
const features: Feature[] = ["payments", "smart-wallets", "x402"];
const feeRecipient = "0x2000000000000000000000000000000000000001";

describe("the config deploy writes", () => {
  test("holds no secret, and starts the service once the environment variables it names are set", () => {
    const file = join(dir, "relay402.json");
    for (const name of ["bsc", "base"] as const) {
      const network = deployNetwork(name);
      if (!network) throw new Error(name);
      writeConfig(file, {
        network,
        features,
        addresses,
        tokens: network.tokens,
        feeRecipient,
        allowUntrustedSetup: false,
      });
    }
    const text = readFileSync(file, "utf8");
    expect(text).not.toMatch(/Key|rpcUrls|bundlerUrl|adminApiKey/);
    const bsc = deployNetwork("bsc");
    if (!bsc) throw new Error("bsc");
    expect(secretEnvironment(bsc, features)).toEqual([
      "BSC_RPC_URLS",
      "BSC_EXECUTOR_KEYS",
      "BSC_PAYMASTER_SIGNER_KEY",
      "BSC_BUNDLER_URL",
      "ADMIN_API_KEY",
    ]);
    const env: Record<string, string> = { ADMIN_API_KEY: "an-admin-key-of-the-operator" };
    for (const prefix of ["BSC", "BASE"]) {
      env[`${prefix}_RPC_URLS`] = "https://rpc.example";
      env[`${prefix}_BUNDLER_URL`] = "https://bundler.example";
      env[`${prefix}_EXECUTOR_KEYS`] = generatePrivateKey();
      env[`${prefix}_PAYMASTER_SIGNER_KEY`] = generatePrivateKey();
    }
    const config = loadConfig({ file, env });
    expect(config.mode).toBe("production");
    expect(config.networks.bsc?.contracts.relayer).toBe(addresses.Relayer);
    expect(config.networks.base?.contracts.paymaster).toBe(addresses.Paymaster);
    expect(config.networks.base?.tokens[0]).toMatchObject({ symbol: "USDC", decimals: 6, eip3009: true });
    expect(config.networks.bsc?.x402?.enabled).toBe(true);
  });

  test("a pool deployed by an earlier run keeps that run's start block; another pool does not inherit it", () => {
    const file = join(dir, "pool.json");
    const network = deployNetwork("base");
    if (!network) throw new Error("base");
    const incognito: Feature[] = [...features, "incognito"];
    const pool = { ...addresses, PrivacyPool: "0x1000000000000000000000000000000000000004" } as const;
    const write = (withAddresses: Record<string, `0x${string}`>, privacyPoolStartBlock?: number) =>
      writeConfig(file, {
        network,
        features: incognito,
        addresses: withAddresses,
        tokens: network.tokens,
        feeRecipient,
        allowUntrustedSetup: true,
        privacyPoolStartBlock,
      });
    const startBlock = () => JSON.parse(readFileSync(file, "utf8")).networks.base.privacyPoolStartBlock;
    write(pool, 1234);
    expect(startBlock()).toBe(1234);
    write(pool);
    expect(startBlock()).toBe(1234);
    write({ ...pool, PrivacyPool: "0x1000000000000000000000000000000000000005" });
    expect(startBlock()).toBeUndefined();
    expect(JSON.parse(readFileSync(file, "utf8")).incognito).toEqual({ allowUntrustedSetup: true });
  });
});
