import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ConfigError, encodeConfig, loadConfig } from "../../src/config/load";
import { loadCircuitDescriptor } from "../../src/incognito/artifacts";
import { UNTRUSTED_SETUP_IDS } from "../../src/incognito/trusted-setup";

const key = generatePrivateKey();
const baseEnv = {
  ADMIN_API_KEY: "a-production-admin-key-000",
  BSC_RPC_URLS: "http://127.0.0.1:1,http://127.0.0.1:2",
  BSC_BUNDLER_URL: "http://127.0.0.1:3",
  BSC_EXECUTOR_KEYS: key,
  BSC_PAYMASTER_SIGNER_KEY: key,
};
const file = join(import.meta.dir, "fixtures", "bsc.json");

describe("config", () => {
  test("file + environment give a validated config, with RPC fallback URLs in order", () => {
    const config = loadConfig({ env: baseEnv, file });
    expect(config.mode).toBe("production");
    expect(config.networks.bsc?.rpcUrls).toEqual(["http://127.0.0.1:1", "http://127.0.0.1:2"]);
    expect(config.networks.bsc?.chainId).toBe(56);
    expect(config.networks.base).toBeUndefined();
    expect(config.rateLimitPerMinute).toBe(120);
  });

  test("production refuses to start without an admin key", () => {
    const { ADMIN_API_KEY: _, ...env } = baseEnv;
    expect(() => loadConfig({ env, file })).toThrow(/adminApiKey/);
  });

  test("a bad value names the field and never echoes a secret", () => {
    const bad = { ...baseEnv, BSC_EXECUTOR_KEYS: "0x1234" };
    let message = "";
    try {
      loadConfig({ env: bad, file });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain("networks.bsc.executorKeys");
    expect(message).not.toContain(key.slice(2));
    expect(() => loadConfig({ env: { ...baseEnv, BSC_RPC_URLS: "ftp://nope" }, file })).toThrow(
      /networks\.bsc\.rpcUrls/,
    );
    expect(() => loadConfig({ env: { ...baseEnv, PORT: "99999" }, file })).toThrow(/port/);
  });

  test("MERCHANT_API_KEYS gives the merchant keys (comma-separated, over the file's); a short one is refused unquoted", () => {
    const keys = ["merchant-key-from-env-0001", "merchant-key-from-env-0002"];
    const overrides = { merchantApiKeys: ["merchant-key-from-file-001"] };
    expect(loadConfig({ env: baseEnv, file, overrides }).merchantApiKeys).toEqual(overrides.merchantApiKeys);
    const env = { ...baseEnv, MERCHANT_API_KEYS: ` ${keys[0]}, ${keys[1]},` };
    expect(loadConfig({ env, file, overrides }).merchantApiKeys).toEqual(keys);
    expect(loadConfig({ env: baseEnv, file }).merchantApiKeys).toBeUndefined();
    let message = "";
    try {
      loadConfig({ env: { ...baseEnv, MERCHANT_API_KEYS: `${keys[0]},short-secret` }, file });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("merchantApiKeys.1");
    expect(message).not.toContain("short-secret");
    expect(message).not.toContain(keys[0]);
  });

  test("a key outside secp256k1's range is refused at load naming the field, never quoting the key", () => {
    // Both match the 32-byte pattern; viem's own error for them quotes the key as a number.
    const zero = `0x${"00".repeat(32)}`;
    const beyondOrder = `0x${"ff".repeat(32)}`;
    const refusals = [
      { env: { ...baseEnv, BSC_EXECUTOR_KEYS: `${key},${zero}` }, field: "networks.bsc.executorKeys.1", secret: zero },
      {
        env: { ...baseEnv, BSC_PAYMASTER_SIGNER_KEY: beyondOrder },
        field: "networks.bsc.paymasterSignerKey",
        secret: BigInt(beyondOrder).toString(),
      },
    ];
    for (const { env, field, secret } of refusals) {
      let error: unknown;
      try {
        loadConfig({ env, file });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(`invalid config: ${field} (not a secp256k1 private key)`);
      expect((error as Error).message).not.toContain(secret.slice(2));
    }
  });

  test("addresses, keys and amounts are decoded once into the service's types", () => {
    const config = loadConfig({ env: baseEnv, file });
    const bsc = config.networks.bsc!;
    const [token] = bsc.tokens;
    expect(token?.minFee).toBe(10_000_000_000_000_000n);
    expect(token?.deploymentFeePerWallet).toBe(10n ** 18n);
    expect(token?.minPaymentValue).toBe(1n);
    expect(bsc.executorKeys).toEqual([key]);
    expect(bsc.paymasterSigner.address).toBe(privateKeyToAccount(key).address);
    // Encoding gives the file's spelling back: what a config file written from it would hold.
    const encoded = encodeConfig(config).networks.bsc!;
    expect(encoded.tokens[0]?.minFee).toBe("10000000000000000");
    expect("paymasterSigner" in encoded).toBe(false);
    expect(encodeConfig(loadConfig({ env: {}, overrides: encodeConfig(config) }))).toEqual(encodeConfig(config));
  });

  test("a config file that is not JSON is refused without quoting it (it may hold a secret)", () => {
    const path = join(import.meta.dir, "fixtures", "not-json.txt");
    expect(() => loadConfig({ env: baseEnv, file: path })).toThrow(/not valid JSON/);
    try {
      loadConfig({ env: baseEnv, file: path });
    } catch (error) {
      expect((error as Error).message).not.toContain("supersecretadminkey");
    }
    expect(() => loadConfig({ env: baseEnv, file: "/nonexistent/relay402.json" })).toThrow(/file not found/);
  });

  test("swaps: PancakeSwap's routers as a fork configures them, decoded with defaults; one router per kind, a V3 router needs its quoter", () => {
    const pancake = {
      routers: [
        {
          name: "pancakeswap-v2",
          address: "0x10ED43C718714eb63d5aA57B78B54704E256024E",
          kind: "v2",
          factory: "0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73",
          initCodeHash: "0x00fb7f630766e6a796048ea87d01acd3068e8ff67d078148a3fa3f4a84f69bd5",
          feeBps: 25,
        },
        {
          address: "0x13f4EA83D0bd40E75C8222255bc855a974568Dd4",
          kind: "v3",
          factory: "0x41ff9AA7e16B8B1a8a8dc4f0eFacd93D02d071c9",
          initCodeHash: "0x6ce8eb472fa82df5469c6ab6d485f17c3ad13c8cd7af59b3d4a8026c5ce0f7e2",
          feeTiers: [100, 500, 2500, 10000],
        },
      ],
      quoter: "0xB048Bbc1Ee6b733FFfCFb9e9CeF7375518e25997",
      connectors: ["0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c", "0x55d398326f99059fF775485246999027B3197955"],
      wrappedNative: "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c",
    };
    const bsc = JSON.parse(readFileSync(file, "utf8")).networks.bsc;
    const load = (swap: unknown) =>
      loadConfig({ env: baseEnv, file, overrides: { networks: { bsc: { ...bsc, swap } } } as never });
    const swap = load(pancake).networks.bsc?.swap;
    expect(swap?.routers.map((r) => [r.name, r.kind, r.feeBps, r.feeTiers])).toEqual([
      ["pancakeswap-v2", "v2", 25, [100, 500, 3000, 10000]],
      ["uniswap-v3", "v3", 30, [100, 500, 2500, 10000]],
    ]);
    const [token] = load(pancake).networks.bsc?.tokens ?? [];
    expect([token?.swapFeeBps, token?.swapMinFee]).toEqual([token?.feeBps, token?.minFee]);
    expect(loadConfig({ env: baseEnv, file }).networks.bsc?.swap).toBeUndefined();
    const [v2, v3] = pancake.routers;
    expect(() => load({ ...pancake, routers: [v2, v2] })).toThrow(/one router per kind/);
    expect(() => load({ ...pancake, quoter: undefined })).toThrow(/quoter/);
    expect(() => load({ ...pancake, routers: [{ ...v3, kind: "v4" }] })).toThrow(/swap/);
  });

  test("the testnets are configured like bsc and base, from environment variables named after them", () => {
    const bscNetwork = JSON.parse(readFileSync(file, "utf8")).networks.bsc;
    const env = {
      ADMIN_API_KEY: baseEnv.ADMIN_API_KEY,
      BSC_TESTNET_RPC_URLS: "http://127.0.0.1:5",
      BSC_TESTNET_BUNDLER_URL: "http://127.0.0.1:6",
      BSC_TESTNET_EXECUTOR_KEYS: key,
      BSC_TESTNET_PAYMASTER_SIGNER_KEY: key,
      BASE_SEPOLIA_RPC_URLS: "http://127.0.0.1:7,http://127.0.0.1:8",
      BASE_SEPOLIA_BUNDLER_URL: "http://127.0.0.1:9",
      BASE_SEPOLIA_EXECUTOR_KEYS: key,
      BASE_SEPOLIA_PAYMASTER_SIGNER_KEY: key,
    };
    const config = loadConfig({
      env,
      overrides: { networks: { "bsc-testnet": bscNetwork, "base-sepolia": bscNetwork } },
    });
    expect(Object.keys(config.networks).sort()).toEqual(["base-sepolia", "bsc-testnet"]);
    const testnet = config.networks["bsc-testnet"];
    const sepolia = config.networks["base-sepolia"];
    // Chain ids and block times are the presets'.
    expect([testnet?.chainId, testnet?.blockTimeMs, testnet?.rpcUrls]).toEqual([97, 450, ["http://127.0.0.1:5"]]);
    expect([sepolia?.chainId, sepolia?.blockTimeMs, sepolia?.bundlerUrl]).toEqual([84532, 2_000, "http://127.0.0.1:9"]);
    expect(sepolia?.rpcUrls).toEqual(["http://127.0.0.1:7", "http://127.0.0.1:8"]);
    // A testnet's chain id is checked like any network's.
    expect(() =>
      loadConfig({
        env,
        overrides: { networks: { "bsc-testnet": bscNetwork, "base-sepolia": { ...bscNetwork, chainId: 8453 } } },
      }),
    ).toThrow("networks.base-sepolia.chainId must be 84532");
  });

  test("a network with the wrong chain id is refused", () => {
    expect(() => loadConfig({ env: baseEnv, file, overrides: { networks: { bsc: { chainId: 1 } } } })).toThrow();
  });

  test("production refuses incognito with the devnet circuit (a local trusted setup) unless incognito.allowUntrustedSetup", () => {
    expect(UNTRUSTED_SETUP_IDS).toContain(loadCircuitDescriptor().id);
    const fixture = JSON.parse(readFileSync(file, "utf8"));
    const withPool = (mode: string, incognito?: unknown) => ({
      mode,
      ...(incognito === undefined ? {} : { incognito }),
      networks: {
        bsc: {
          ...fixture.networks.bsc,
          contracts: { ...fixture.networks.bsc.contracts, privacyPool: "0x0000000000000000000000000000000000000b01" },
        },
      },
    });
    const refusal = /networks\.bsc\.contracts\.privacyPool.*unshield-[0-9a-f]{16}.*incognito\.allowUntrustedSetup/;
    expect(() => loadConfig({ env: baseEnv, overrides: withPool("production") })).toThrow(refusal);
    expect(() =>
      loadConfig({ env: baseEnv, overrides: withPool("production", { allowUntrustedSetup: false }) }),
    ).toThrow(refusal);
    const allowed = loadConfig({ env: baseEnv, overrides: withPool("production", { allowUntrustedSetup: true }) });
    expect(allowed.networks.bsc?.contracts.privacyPool).toBe("0x0000000000000000000000000000000000000b01");
    expect(loadConfig({ env: baseEnv, overrides: withPool("devnet") }).mode).toBe("devnet");
    // Without a pool there is no incognito to refuse.
    expect(loadConfig({ env: baseEnv, file }).networks.bsc?.contracts.privacyPool).toBeUndefined();
  });

  test("the service binary exits with the field's name on a bad config, without a stack trace or a key", () => {
    const bun = join(import.meta.dir, "..", "..", "node_modules", ".bin", "bun");
    const result = spawnSync(bun, ["src/main.ts"], {
      cwd: join(import.meta.dir, "..", ".."),
      env: {
        PATH: process.env.PATH,
        ...baseEnv,
        RELAY402_CONFIG: file,
        BSC_PAYMASTER_SIGNER_KEY: "0xnot-a-key",
        ADMIN_API_KEY: "short",
      },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("adminApiKey");
    expect(result.stderr).toContain("networks.bsc.paymasterSignerKey");
    expect(result.stderr + result.stdout).not.toContain(key.slice(2));
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
