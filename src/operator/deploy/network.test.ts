import { describe, expect, test } from "bun:test";
import { create2Address, requiredCanonical, saltOf } from "./contracts";
import { DEFAULT_FEATURES, deployNetwork, envPrefix, parseFeatures } from "./network";

describe("deploy's networks and features", () => {
  test("every preset's network is known with its chain id and stablecoins; anything else is not", () => {
    expect(deployNetwork("bsc")).toMatchObject({
      chainId: 56,
      tokens: [
        { symbol: "USDT", decimals: 18 },
        { symbol: "USDC", decimals: 18 },
      ],
    });
    expect(deployNetwork("base-sepolia")).toMatchObject({ chainId: 84532, swapRouters: [] });
    expect(deployNetwork("base")).toMatchObject({
      chainId: 8453,
      tokens: [{ symbol: "USDC", decimals: 6, eip3009: true }],
    });
    expect(deployNetwork("ethereum")).toBeUndefined();
    expect(deployNetwork("constructor")).toBeUndefined();
  });

  test("a network's environment variables are prefixed by its name in upper case with - as _", () => {
    expect(envPrefix("bsc")).toBe("BSC");
    expect(envPrefix("bsc-testnet")).toBe("BSC_TESTNET");
  });

  test("--features takes known names once each and names the first unknown one", () => {
    expect(parseFeatures("payments, x402,payments")).toEqual({ features: ["payments", "x402"] });
    expect(parseFeatures("payments,wallets,x402")).toEqual({ unknown: "wallets" });
    expect(DEFAULT_FEATURES).toEqual(["payments", "smart-wallets", "x402"]);
  });

  test("the canonical contracts required follow the features", () => {
    expect(requiredCanonical(["payments"])).toEqual(["create2Deployer", "multicall3"]);
    expect(requiredCanonical(["smart-wallets", "x402"])).toEqual([
      "create2Deployer",
      "multicall3",
      "entryPointV07",
      "permit2",
    ]);
  });

  test("a CREATE2 address depends on the salt and the init code only (so it is the same on every chain)", () => {
    const payload = { salt: saltOf("Relayer"), initCode: "0x6000" as const };
    expect(create2Address(payload)).toBe(create2Address({ ...payload }));
    expect(create2Address({ ...payload, salt: saltOf("Relayer2") })).not.toBe(create2Address(payload));
    expect(create2Address({ ...payload, initCode: "0x6001" })).not.toBe(create2Address(payload));
  });
});
