import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forgeArtifact } from "../../scripts/devnet/artifacts";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { runStartChecks } from "../../src/chain/wiring-check";
import { ConfigError, encodeConfig, validateConfig } from "../../src/config/load";
import type { Config, ConfigInput, NetworkConfigInput } from "../../src/config/schema";
import { startServer } from "../../src/server";
import { chainOf, randomAddress } from "../support/chain";
import { getTestDevnet } from "../support/devnet";

const dir = mkdtempSync(join(tmpdir(), "relay402-contract-checks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { manifest } = getTestDevnet().devnet;

/** The devnet config with `change` made to its bsc network as the file would spell it. */
async function devnetConfig(change: (bsc: NetworkConfigInput) => void): Promise<Config> {
  const config = encodeConfig(
    configFromManifest(manifest, {
      port: await freePort(),
      databasePath: join(mkdtempSync(join(dir, "db-")), "relay402.sqlite"),
      logRequests: false,
    }),
  ) as ConfigInput;
  change(config.networks.bsc as NetworkConfigInput);
  return validateConfig(config);
}

/** The problems the start's checks find (what `relay402 check` prints as FAILED). */
async function problemsOf(change: (bsc: NetworkConfigInput) => void): Promise<string[]> {
  const { checks } = await runStartChecks(await devnetConfig(change));
  return checks.flatMap((check) => (check.problem ? [check.problem] : []));
}

describe("the start checks each configured contract and token on its chain", () => {
  const bsc = manifest.networks.bsc;

  test("a relayer address with no code stops the start, naming the field; nothing listens", async () => {
    const empty = randomAddress();
    const config = await devnetConfig((network) => {
      network.contracts = { ...network.contracts, relayer: empty };
    });
    let error: unknown;
    try {
      const service = await startServer(config, { silent: true });
      await service.stop();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `start refused: networks.bsc.contracts.relayer has no code at ${empty} on chain 56`,
    );
    const listening = await fetch(`http://127.0.0.1:${config.port}/health`).then(
      () => true,
      () => false,
    );
    expect(listening).toBe(false);
  });

  test("a relayer that is not one (no EIP-5267) and a token it does not whitelist are refused", async () => {
    // A token the relayer has never heard of: the devnet DAI's code at a fresh address.
    const stray = randomAddress();
    await chainOf("bsc").test.setCode({
      address: stray,
      bytecode: forgeArtifact("TestDAI.sol", "TestDAI").deployedBytecode,
    });
    const token = (await devnetConfig(() => {})).networks.bsc?.tokens[1];
    expect(
      await problemsOf((network) => {
        network.tokens.push({ ...network.tokens[1]!, symbol: "STRAY", address: stray });
      }),
    ).toEqual([
      "networks.bsc.tokens.4 (STRAY) is not whitelisted by networks.bsc.contracts.relayer (its owner calls setTokenWhitelisted)",
    ]);
    expect(token?.symbol).toBe("DAI");
    expect(
      await problemsOf((network) => {
        network.contracts = { ...network.contracts, relayer: bsc.factory };
      }),
    ).toEqual([
      "networks.bsc.contracts.relayer does not answer eip712Domain() (EIP-5267): not a relay402 Relayer?",
      // One per token: USDT, DAI, PUSD, USDC.
      ...Array(4).fill("networks.bsc.contracts.relayer does not answer isTokenWhitelisted()"),
    ]);
  });

  test("a factory that is not relay402's and a paymaster on another EntryPoint are refused", async () => {
    expect(
      await problemsOf((network) => {
        network.contracts = { ...network.contracts, factory: bsc.paymaster, entryPoint: bsc.relayer };
      }),
    ).toEqual([
      `networks.bsc.contracts.paymaster does not use networks.bsc.contracts.entryPoint (${bsc.entryPoint})`,
      "networks.bsc.contracts.factory has no accountImplementation() (not a relay402 WalletFactory?)",
    ]);
  });

  test("a token's decimals, EIP-3009 and EIP-2612 must be what the config says", async () => {
    expect(
      await problemsOf((network) => {
        const [usdt, dai] = network.tokens as [NetworkConfigInput["tokens"][0], NetworkConfigInput["tokens"][0]];
        network.tokens = [
          { ...usdt, decimals: 6, eip3009: true },
          { ...dai, eip2612: true },
        ];
      }),
    ).toEqual([
      "networks.bsc.tokens.0.decimals is 6, but the token has 18",
      "networks.bsc.tokens.0.eip3009 is true, but the token has no EIP-3009 (authorizationState)",
      "networks.bsc.tokens.0 (USDT) has EIP-3009 or EIP-2612 in the config but answers neither eip712Domain() nor name() and version()",
      "networks.bsc.tokens.1.eip2612 is true, but the token has no EIP-2612 permit (nonces, DOMAIN_SEPARATOR)",
      "networks.bsc.tokens.1 (DAI) has EIP-3009 or EIP-2612 in the config but answers neither eip712Domain() nor name() and version()",
    ]);
  });

  test("each token's EIP-712 name and version are read at start and given in /config and /supported", async () => {
    const service = await startServer(await devnetConfig(() => {}), { silent: true });
    try {
      const config = (await fetch(`${service.url}/config`).then((r) => r.json())) as any;
      const [usdc, dai] = config.networks.base.tokens;
      expect(usdc.eip712).toEqual({ name: "USD Coin", version: "2" });
      expect([usdc.eip3009, usdc.eip2612]).toEqual([true, false]);
      expect(dai.eip712).toBeNull();
      const supported = (await fetch(`${service.url}/supported`).then((r) => r.json())) as any;
      const base = supported.kinds.find((kind: any) => kind.network === "eip155:8453");
      expect(base.extra.assets).toContainEqual({
        asset: manifest.networks.base.tokens.USDC?.address,
        symbol: "USDC",
        decimals: 6,
        name: "USD Coin",
        version: "2",
        assetTransferMethod: "eip3009",
      });
    } finally {
      await service.stop();
    }
  });
});
