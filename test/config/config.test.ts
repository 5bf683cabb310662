import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ConfigError, encodeConfig, loadConfig } from "../../src/config/load";

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

  test("a network with the wrong chain id is refused", () => {
    expect(() => loadConfig({ env: baseEnv, file, overrides: { networks: { bsc: { chainId: 1 } } } })).toThrow();
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
