import { describe, expect, test } from "bun:test";
import { generatePrivateKey } from "viem/accounts";
import { hasCapability, missingSettings } from "./capabilities";
import { envVariableOf } from "./env";
import { ConfigError, loadConfig } from "./load";
import { editDistance, nearestName } from "./unknown-settings";

const key = generatePrivateKey();
const env = { ADMIN_API_KEY: "a-production-admin-key-000", BSC_RPC_URLS: "http://127.0.0.1:1", BSC_EXECUTOR_KEYS: key };
const token = {
  symbol: "USDT",
  address: "0x55d398326f99059fF775485246999027B3197955",
  decimals: 18,
  eip3009: false,
  feeBps: 50,
  minFee: "1",
  deploymentFeePerWallet: "1",
};
const relayer = "0x13e0a3e5A4eA124eF278642E53052a1721470A43";

/** The problems a config is refused with (ConfigError.problems); fails the test when it loads. */
function problemsOf(overrides: Record<string, unknown>, extraEnv: Record<string, string> = {}): readonly string[] {
  try {
    loadConfig({ env: { ...env, ...extraEnv }, overrides });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("the config loaded");
}

const bsc = (network: Record<string, unknown>) => ({
  networks: { bsc: { tokens: [token], feeRecipient: relayer, ...network } },
});

describe("strict config", () => {
  test("the nearest known name of a misspelling, and none for a name that is nothing like one", () => {
    expect(editDistance("maxFeePerGasGwie", "maxFeePerGasGwei")).toBe(2);
    expect(nearestName("maxFeePerGasGwie", ["maxFeePerGasGwei", "settleGasLimit"])).toBe("maxFeePerGasGwei");
    expect(nearestName("colour", ["maxFeePerGasGwei", "settleGasLimit"])).toBeUndefined();
  });

  test("an unknown setting is refused at every level with the nearest known name, all of them at once", () => {
    const problems = problemsOf({
      rateLimitPerMinut: 10,
      networks: {
        bsc: {
          maxFeePerGasGwie: 5,
          contracts: { relayr: relayer },
          tokens: [{ ...token, decimal: 6 }],
          x402: { enable: true },
          swap: {
            routers: [{ address: relayer, kind: "v2", factory: relayer, initCodeHash: `0x${"0".repeat(64)}`, fee: 3 }],
            connectors: [],
            wrappedNative: relayer,
          },
          feeRecipient: relayer,
        },
        bnb: {},
      },
    });
    expect(problems).toEqual([
      "rateLimitPerMinut: unknown setting on the top level; did you mean rateLimitPerMinute?",
      "maxFeePerGasGwie: unknown setting on networks.bsc; did you mean maxFeePerGasGwei?",
      "relayr: unknown setting on networks.bsc.contracts; did you mean relayer?",
      "decimal: unknown setting on networks.bsc.tokens.0; did you mean decimals?",
      "enable: unknown setting on networks.bsc.x402; did you mean enabled?",
      "fee: unknown setting on networks.bsc.swap.routers.0",
      "bnb: unknown setting on networks; did you mean bsc?",
      // The misspelt names' settings are then missing, which is said too.
      "networks.bsc.x402.enabled: Expected required property",
      "networks.bsc.swap: swaps need networks.bsc.contracts.relayer",
    ]);
  });

  test("every problem is reported, each naming the field and the variable that sets it, never the value", () => {
    const secret = "0xnot-a-key-but-secret";
    const problems = problemsOf(bsc({ rpcUrls: ["ftp://x"], settleGasLimit: 5 }), {
      BSC_EXECUTOR_KEYS: `${key},${secret}`,
      BSC_PAYMASTER_SIGNER_KEY: `0x${"0".repeat(64)}`,
      BSC_RPC_URLS: "ftp://nope",
      ADMIN_API_KEY: "short",
    });
    expect(problems.map((problem) => problem.split(":")[0])).toEqual([
      "adminApiKey (ADMIN_API_KEY)",
      "networks.bsc.rpcUrls.0 (BSC_RPC_URLS)",
      "networks.bsc.executorKeys.1 (BSC_EXECUTOR_KEYS)",
      "networks.bsc.paymasterSignerKey (BSC_PAYMASTER_SIGNER_KEY)",
      "networks.bsc.settleGasLimit",
      // A paymaster signer key without the rest of the smart-wallet settings.
      "networks.bsc.bundlerUrl (BSC_BUNDLER_URL), networks.bsc.contracts.entryPoint, networks.bsc.contracts.factory, networks.bsc.contracts.paymaster",
    ]);
    const all = problems.join(" ");
    for (const value of ["secret", "short", "nope", key.slice(2)]) expect(all).not.toContain(value);
  });

  test("a network needs only RPC URLs, executor keys and tokens; smart-wallet settings go together", () => {
    const config = loadConfig({ env, overrides: bsc({ x402: { enabled: true } }) });
    expect(config.networks.bsc?.contracts).toEqual({});
    expect(config.networks.bsc?.paymasterSigner).toBeUndefined();
    const network = config.networks.bsc as object;
    expect(hasCapability(network, "x402")).toBe(true);
    expect(missingSettings(network, "eoa-payments")).toEqual(["contracts.relayer"]);
    const partial = problemsOf(bsc({ contracts: { relayer, factory: relayer } }), { BSC_BUNDLER_URL: "http://b" });
    expect(partial).toEqual([
      "networks.bsc.contracts.entryPoint, networks.bsc.contracts.paymaster, networks.bsc.paymasterSignerKey (BSC_PAYMASTER_SIGNER_KEY): " +
        "smart wallets need bundlerUrl, contracts.entryPoint, contracts.factory, contracts.paymaster, paymasterSignerKey together " +
        "(set the rest, or remove them to serve payments only)",
    ]);
    const swapWithoutRelayer = problemsOf(
      bsc({
        swap: {
          routers: [{ address: relayer, kind: "v3", factory: relayer, initCodeHash: `0x${"0".repeat(64)}` }],
          connectors: [],
          wrappedNative: relayer,
        },
      }),
    );
    expect(swapWithoutRelayer).toEqual([
      "networks.bsc.swap: swaps need networks.bsc.contracts.relayer",
      "networks.bsc.swap.quoter is required with a v3 router",
    ]);
  });

  test("the environment variable of a field, items and networks included", () => {
    expect(envVariableOf("networks.bsc.executorKeys.3")).toBe("BSC_EXECUTOR_KEYS");
    expect(envVariableOf("networks.base.wsUrl")).toBe("BASE_WS_URL");
    expect(envVariableOf("merchantApiKeys.0")).toBe("MERCHANT_API_KEYS");
    expect(envVariableOf("networks.bsc.contracts.relayer")).toBeUndefined();
  });
});

test("a pool without the smart-wallet settings it needs is refused, naming them", () => {
  expect(problemsOf(bsc({ contracts: { relayer, privacyPool: relayer } }))).toEqual([
    "networks.bsc.contracts.privacyPool: incognito need networks.bsc.bundlerUrl (BSC_BUNDLER_URL), " +
      "networks.bsc.contracts.entryPoint, networks.bsc.contracts.factory, networks.bsc.contracts.paymaster, " +
      "networks.bsc.paymasterSignerKey (BSC_PAYMASTER_SIGNER_KEY)",
  ]);
});
