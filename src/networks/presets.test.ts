import { describe, expect, test } from "bun:test";
import { getAddress } from "viem";
import { CHAIN_IDS, DEFAULT_BLOCK_TIME_MS } from "../config/schema";
import { envPrefix, explorerAddressUrl, explorerTxUrl, NETWORK_PRESETS, NETWORKS, presetOf, presetOfChain } from ".";

describe("the network presets", () => {
  test("names and chain ids are unique, and names are what config keys and environment prefixes can hold", () => {
    expect(new Set(NETWORKS).size).toBe(NETWORK_PRESETS.length);
    expect(new Set(NETWORK_PRESETS.map((preset) => preset.chainId)).size).toBe(NETWORK_PRESETS.length);
    for (const name of NETWORKS) expect(name).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(NETWORKS).toEqual(["bsc", "base", "bsc-testnet", "base-sepolia"]);
  });

  test("each network is found by its name and its chain id", () => {
    for (const preset of NETWORK_PRESETS) {
      expect(presetOf(preset.name)).toBe(preset);
      expect(presetOfChain(preset.chainId)).toBe(preset);
    }
    expect(presetOfChain(1)).toBeUndefined();
  });

  test("the x402 v2 id is the CAIP-2 id of the chain; v1 names are unique", () => {
    for (const preset of NETWORK_PRESETS) expect(preset.x402.caip2).toBe(`eip155:${preset.chainId}`);
    const v1 = NETWORK_PRESETS.flatMap((preset) => preset.x402.v1Name ?? []);
    expect(new Set(v1).size).toBe(v1.length);
    expect(presetOf("base-sepolia").x402.v1Name).toBe("base-sepolia");
    expect(presetOf("bsc").x402.v1Name).toBeNull();
  });

  test("every address is checksummed (a mistyped character breaks the checksum)", () => {
    for (const preset of NETWORK_PRESETS) {
      const swap = preset.swap;
      const addresses = [
        ...preset.stablecoins.map((token) => token.address),
        ...(swap
          ? [
              swap.wrappedNative.address,
              swap.quoter,
              ...swap.connectors,
              ...swap.routers.flatMap((r) => [r.address, r.factory]),
            ]
          : []),
      ];
      for (const address of addresses)
        expect(`${preset.name} ${address}`).toBe(`${preset.name} ${getAddress(address)}`);
    }
  });

  test("each network has a stablecoin, with decimals, and an EIP-712 name and version wherever it signs", () => {
    for (const preset of NETWORK_PRESETS) {
      expect(preset.stablecoins.length).toBeGreaterThan(0);
      for (const token of preset.stablecoins) {
        expect(token.symbol.length).toBeGreaterThan(0);
        expect(Number.isInteger(token.decimals) && token.decimals >= 0 && token.decimals <= 36).toBe(true);
        if (token.eip3009 || token.eip2612) {
          expect(token.eip712?.name.length).toBeGreaterThan(0);
          expect(token.eip712?.version.length).toBeGreaterThan(0);
        } else {
          expect(token.eip712).toBeNull();
        }
      }
    }
  });

  test("block times, explorers and userOp caps are set; a DEX preset's connectors include its wrapped native token", () => {
    for (const preset of NETWORK_PRESETS) {
      expect(preset.blockTimeMs).toBeGreaterThanOrEqual(50);
      expect(preset.explorer.tx).toMatch(/^https:\/\/[^/]+\/.*\{hash\}$/);
      expect(preset.explorer.address).toMatch(/^https:\/\/[^/]+\/.*\{address\}$/);
      expect(preset.userOpCaps.maxTotalGas).toBeGreaterThan(preset.userOpCaps.maxCallGasLimit);
      if (preset.swap) expect(preset.swap.connectors).toContain(preset.swap.wrappedNative.address);
    }
  });

  test("config derives its chain ids, block time defaults and environment prefixes from the presets", () => {
    expect(CHAIN_IDS).toEqual({ bsc: 56, base: 8453, "bsc-testnet": 97, "base-sepolia": 84532 });
    for (const preset of NETWORK_PRESETS) expect(DEFAULT_BLOCK_TIME_MS[preset.chainId]).toBe(preset.blockTimeMs);
    expect(NETWORKS.map(envPrefix)).toEqual(["BSC", "BASE", "BSC_TESTNET", "BASE_SEPOLIA"]);
  });

  test("explorer links fill the pattern", () => {
    const hash = `0x${"ab".repeat(32)}`;
    expect(explorerTxUrl("base-sepolia", hash)).toBe(`https://sepolia.basescan.org/tx/${hash}`);
    expect(explorerAddressUrl("bsc", "0x55d398326f99059fF775485246999027B3197955")).toBe(
      "https://bscscan.com/address/0x55d398326f99059fF775485246999027B3197955",
    );
  });
});
