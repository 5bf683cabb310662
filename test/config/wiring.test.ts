import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { devnetKeys } from "../../scripts/devnet/keys";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { ConfigError, DEVNET_ADMIN_API_KEY, encodeConfig, validateConfig } from "../../src/config/load";
import type { Config, ConfigInput } from "../../src/config/schema";
import { startServer } from "../../src/server";
import { getTestDevnet } from "../support/devnet";

const root = resolve(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "relay402-wiring-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { manifest } = getTestDevnet().devnet;
const { bsc, base } = manifest.networks;

/** The devnet config with `change` made to it as the file would spell it, then parsed again like any config. */
async function devnetConfig(change?: (config: ConfigInput) => void): Promise<Config> {
  const config = encodeConfig(
    configFromManifest(manifest, {
      port: await freePort(),
      databasePath: join(mkdtempSync(join(dir, "db-")), "relay402.sqlite"),
      logRequests: false,
    }),
  );
  change?.(config);
  return validateConfig(config);
}

/** The start's error message; fails the test when the service started, and checks nothing listens. */
async function refusal(config: Config): Promise<string> {
  let error: unknown;
  try {
    const service = await startServer(config, { silent: true });
    await service.stop();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  expect(message).not.toContain("\n");
  expect(message).not.toContain("127.0.0.1");
  const listening = await fetch(`http://127.0.0.1:${config.port}/health`).then(
    () => true,
    () => false,
  );
  expect(listening).toBe(false);
  return message;
}

describe("start-up wiring checks", () => {
  test("the devnet config starts and reports ok", async () => {
    const service = await startServer(await devnetConfig(), { silent: true });
    try {
      const health = (await fetch(`${service.url}/health`).then((r) => r.json())) as { status: string };
      expect(health.status).toBe("ok");
    } finally {
      await service.stop();
    }
  });

  test("each network serves the flows its config enables: a network without a pool, swaps or x402 serves neither", async () => {
    const lines: string[] = [];
    const config = await devnetConfig((input) => {
      const bsc = (input.networks as Record<string, Record<string, any>>).bsc;
      if (!bsc) throw new Error("no bsc");
      delete bsc.contracts.privacyPool;
      delete bsc.swap;
      bsc.x402 = { enabled: false };
    });
    const service = await startServer(config, { logSink: (line) => lines.push(line) });
    try {
      const served = Object.fromEntries(
        lines
          .map((line) => JSON.parse(line))
          .filter((line) => line.event === "flows_served")
          .map((line) => [line.network, line.flows]),
      );
      expect(served).toEqual({
        bsc: ["payments", "wallets", "deployments"],
        base: ["payments", "x402", "wallets", "incognito", "swaps", "deployments"],
      });
      // What bsc does not serve is refused there, naming the network.
      const quote = { sellToken: bsc.tokens.USDT?.address, buyToken: bsc.dex?.wrappedNative, sellAmount: "1000" };
      const refused = await fetch(`${service.url}/swap/quote`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ network: "bsc", ...quote }),
      }).then((r) => r.json() as Promise<{ code: string; message: string }>);
      expect(refused).toMatchObject({
        code: "validation_error",
        message: "swaps are not enabled on bsc: configure networks.bsc.swap",
        details: { field: "network", network: "bsc", capability: "swaps", configure: ["networks.bsc.swap"] },
      });
    } finally {
      await service.stop();
    }
  });

  test("bsc pointed at the base chain's RPC is refused, naming the network and the URL's index", async () => {
    const message = await refusal(await devnetConfig((c) => (c.networks.bsc!.rpcUrls = [bsc.rpcUrl, base.rpcUrl])));
    expect(message).toBe("start refused: networks.bsc.rpcUrls.1 answers chain id 8453, expected 56");
    const only = await refusal(await devnetConfig((c) => (c.networks.bsc!.rpcUrls = [base.rpcUrl])));
    expect(only).toContain("networks.bsc.rpcUrls.0 answers chain id 8453, expected 56");
  });

  test("an RPC URL that does not answer is refused without quoting it (it may carry an API key)", async () => {
    const port = await freePort();
    const secretUrl = `http://127.0.0.1:${port}/v2/secret-api-key-123`;
    const message = await refusal(await devnetConfig((c) => (c.networks.base!.rpcUrls = [base.rpcUrl, secretUrl])));
    expect(message).toBe("start refused: networks.base.rpcUrls.1 is unreachable");
    expect(message).not.toContain("secret-api-key-123");
  });

  test("the other chain's bundler is refused", async () => {
    const message = await refusal(await devnetConfig((c) => (c.networks.bsc!.bundlerUrl = base.bundlerUrl)));
    expect(message).toBe("start refused: networks.bsc.bundlerUrl answers chain id 8453, expected 56");
  });

  test("a paymaster signer key the paymaster contract does not verify is refused, without the key", async () => {
    const wrongKey = generatePrivateKey();
    const message = await refusal(await devnetConfig((c) => (c.networks.base!.paymasterSignerKey = wrongKey)));
    const expected = privateKeyToAccount(devnetKeys.paymasterSigner).address;
    expect(message).toBe(
      `start refused: networks.base.paymasterSignerKey is the key of ${privateKeyToAccount(wrongKey).address}, but the paymaster verifies ${expected}`,
    );
    expect(message).not.toContain(wrongKey.slice(2));
  });

  test("production mode refuses the public devnet admin key", async () => {
    expect(() => configFromManifest(manifest, { mode: "production" })).toThrow(
      "adminApiKey (ADMIN_API_KEY) is the public devnet key (set your own for production)",
    );
    expect(configFromManifest(manifest, { mode: "devnet" }).adminApiKey).toBe(DEVNET_ADMIN_API_KEY);
    // The devnet's pool verifies with the devnet circuit, which production serves only when told to.
    const production = {
      mode: "production" as const,
      adminApiKey: "an-operator-key-0000",
      incognito: { allowUntrustedSetup: true },
    };
    // The devnet's executor and paymaster keys come from the public test mnemonic: production refuses each,
    // naming its field and never the key.
    let refusal = "";
    try {
      configFromManifest(manifest, production);
    } catch (error) {
      refusal = (error as Error).message;
    }
    for (const field of [
      "networks.bsc.executorKeys[0]",
      "networks.base.executorKeys[7]",
      "networks.bsc.paymasterSignerKey",
    ])
      expect(refusal).toContain(field);
    expect(refusal).toContain("publicly known");
    for (const key of [...devnetKeys.executors, devnetKeys.paymasterSigner])
      expect(refusal).not.toContain(key.slice(2));
    // With keys of its own the same config is a production config.
    const config = encodeConfig(configFromManifest(manifest));
    for (const network of [config.networks.bsc, config.networks.base]) {
      if (!network) continue;
      network.executorKeys = [generatePrivateKey(), generatePrivateKey()];
      network.paymasterSignerKey = generatePrivateKey();
    }
    expect(validateConfig({ ...config, ...production }).mode).toBe("production");
  });

  test("the service entry point exits with the message, no stack trace, when bsc is wired to the base chain", async () => {
    const config = encodeConfig(await devnetConfig());
    const { adminApiKey: _, networks, ...rest } = config;
    const file = join(dir, "wrong-chain.json");
    writeFileSync(
      file,
      JSON.stringify({
        ...rest,
        mode: "production",
        incognito: { allowUntrustedSetup: true },
        // Keys of its own: production refuses the devnet's public ones before it looks at the chain.
        networks: {
          bsc: {
            ...networks.bsc,
            rpcUrls: [base.rpcUrl],
            executorKeys: [generatePrivateKey()],
            paymasterSignerKey: generatePrivateKey(),
          },
        },
      }),
    );
    const run = (adminKey: string) =>
      spawnSync(join(root, "node_modules", ".bin", "bun"), ["src/main.ts"], {
        cwd: root,
        env: { PATH: process.env.PATH, RELAY402_CONFIG: file, ADMIN_API_KEY: adminKey },
        encoding: "utf8",
        timeout: 30_000,
      });
    const wrongChain = run("an-operator-key-0000");
    expect(wrongChain.status).toBe(1);
    expect(wrongChain.stderr.trim()).toBe("start refused: networks.bsc.rpcUrls.0 answers chain id 8453, expected 56");
    expect(wrongChain.stdout).not.toContain('"event":"started"');

    const devnetKey = run(DEVNET_ADMIN_API_KEY);
    expect(devnetKey.status).toBe(1);
    expect(devnetKey.stderr).toContain("adminApiKey (ADMIN_API_KEY) is the public devnet key");
    expect(devnetKey.stderr).not.toContain(DEVNET_ADMIN_API_KEY);
  });
});
