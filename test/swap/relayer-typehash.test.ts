// A relayer deployed before swaps bound their route hashes the old SwapWithAuthorization type: every signature the
// service has payers make recovers another signer there, so every swap would be refused. The start reads the
// relayer's SWAP_WITH_AUTHORIZATION_TYPEHASH and switches swaps off on that network with the reason (/health,
// /config, the start log), while the relayer's payments keep working. The chain's balances judge.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { erc20Abi } from "@relay402/client/wire/abis";
import { ROUTER_KIND } from "@relay402/client/wire/swap/abis";
import { SWAP_WITH_AUTHORIZATION_TYPE } from "@relay402/client/wire/swap/typed-data";
import { type Address, type Hex, keccak256, parseAbi, toBytes } from "viem";
import { forgeArtifact } from "../../scripts/devnet/artifacts";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import type { NetworkName } from "../../scripts/devnet/start";
import type { Config } from "../../src/config/schema";
import { startServer } from "../../src/server";
import { signedPayment } from "../support/authorization";
import { chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { getTestDevnet } from "../support/devnet";
import { jsonCaller } from "../support/json-call";

/** The type relayers signed before route binding (no router, no routeHash). */
const TYPE_BEFORE_ROUTE_BINDING =
  "SwapWithAuthorization(address from,address sellToken,address buyToken,uint256 sellAmount,uint256 minBuyAmount,address recipient,uint256 fee,uint256 validAfter,uint256 validBefore,bytes32 nonce)";
const typehashOf = (type: string) => keccak256(toBytes(type)).slice(2);

const relayerSetupAbi = parseAbi([
  "constructor(string name, string version, address owner)",
  "function setTokenWhitelisted(address token, bool allowed)",
  "function setRouter(address router, uint8 kind)",
  "function SWAP_WITH_AUTHORIZATION_TYPEHASH() view returns (bytes32)",
]);

/**
 * The current Relayer compiled as it is, with its swap typehash constant the one of before route binding: a relayer
 * of that generation as far as the service can tell (same domain, transfers, router kinds), set up by its owner
 * with the network's tokens and routers.
 */
async function deployRelayerBeforeRouteBinding(network: NetworkName, config: Config): Promise<Address> {
  const c = chainOf(network);
  const owner = await freshPayer(network, { tokens: 0n });
  const current = forgeArtifact("Relayer.sol", "Relayer").bytecode;
  const constant = typehashOf(SWAP_WITH_AUTHORIZATION_TYPE);
  expect(current.includes(constant)).toBe(true);
  const bytecode = current.replaceAll(constant, typehashOf(TYPE_BEFORE_ROUTE_BINDING)) as Hex;
  const wallet = c.walletFor(owner.key);
  const mined = async (hash: Hex) => {
    const receipt = await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(receipt.status).toBe("success");
    return receipt;
  };
  const deployed = await mined(
    await wallet.deployContract({ abi: relayerSetupAbi, bytecode, args: ["relay402", "1", owner.address] }),
  );
  const relayer = deployed.contractAddress as Address;
  const networkConfig = config.networks[network];
  if (!networkConfig?.swap) throw new Error(`the ${network} devnet config has no swaps`);
  for (const token of networkConfig.tokens)
    await mined(
      await wallet.writeContract({
        address: relayer,
        abi: relayerSetupAbi,
        functionName: "setTokenWhitelisted",
        args: [token.address, true],
      }),
    );
  for (const router of networkConfig.swap.routers)
    await mined(
      await wallet.writeContract({
        address: relayer,
        abi: relayerSetupAbi,
        functionName: "setRouter",
        args: [router.address, ROUTER_KIND[router.kind]],
      }),
    );
  const typehash = await c.public.readContract({
    address: relayer,
    abi: relayerSetupAbi,
    functionName: "SWAP_WITH_AUTHORIZATION_TYPEHASH",
  });
  expect(typehash).toBe(`0x${typehashOf(TYPE_BEFORE_ROUTE_BINDING)}`);
  return relayer;
}

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

describe("a relayer deployed before route binding", () => {
  test("swaps are off on its networks with the reason in /health, /config and the start log; its EOA payments still settle", async () => {
    const manifest = getTestDevnet().devnet.manifest;
    const config = configFromManifest(
      { ...manifest, service: `http://127.0.0.1:${await freePort()}` },
      {
        databasePath: join(mkdtempSync(join(tmpdir(), "relay402-typehash-")), "relay402.sqlite"),
        rateLimitPerMinute: 1_000_000,
        logRequests: false,
      },
    );
    const relayers = {} as Record<NetworkName, Address>;
    for (const network of NETWORK_NAMES) {
      relayers[network] = await deployRelayerBeforeRouteBinding(network, config);
      (config.networks[network] as { contracts: { relayer?: Address } }).contracts.relayer = relayers[network];
    }
    const lines: string[] = [];
    const service = await startServer(config, { logSink: (line) => lines.push(line) });
    stops.push(() => service.stop());
    const call = jsonCaller(service.url);

    const health = await call("GET", "/health");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("degraded");
    const clientConfig = await call("GET", "/config");
    const logged = lines.map((line) => JSON.parse(line));
    for (const network of NETWORK_NAMES) {
      const c = chainOf(network);
      const reason = `the relayer ${relayers[network]} hashes another SwapWithAuthorization type (SWAP_WITH_AUTHORIZATION_TYPEHASH 0x${typehashOf(TYPE_BEFORE_ROUTE_BINDING)}, the service signs 0x${typehashOf(SWAP_WITH_AUTHORIZATION_TYPE)}: ${SWAP_WITH_AUTHORIZATION_TYPE}); a relayer deployed before swaps bound their route refuses every signed swap: deploy the current Relayer`;
      expect(health.body.networks[network].swap).toMatchObject({ status: "unavailable", reason });
      expect(health.body.networks[network].unavailable).toEqual({ swaps: reason });
      expect(health.body.networks[network].capabilities).not.toContain("swaps");
      expect(health.body.networks[network].capabilities).toContain("eoa-payments");
      expect(clientConfig.body.networks[network].swap).toBeNull();
      expect(logged).toContainEqual(
        expect.objectContaining({ level: "warn", event: "swaps_unavailable", network, reason }),
      );

      // Swaps are refused with the reason before anything is signed or sent.
      const quote = await call("POST", "/swap/quote", {
        network,
        sellToken: c.token.address,
        buyToken: c.info.dex?.wrappedNative,
        sellAmount: (10n ** 18n).toString(),
      });
      expect([quote.status, quote.body.code, quote.body.details?.field]).toEqual([400, "validation_error", "network"]);
      expect(quote.body.message).toBe(`swaps are unavailable on ${network}: ${reason}`);

      // An EOA payment through that relayer: verified, settled, and the tokens moved on-chain.
      const unit = 10n ** BigInt(c.token.decimals);
      const payer = await freshPayer(network, { tokens: 10n * unit });
      const approved = await c.walletFor(payer.key).writeContract({
        address: c.token.address,
        abi: erc20Abi,
        functionName: "approve",
        args: [relayers[network], unit],
      });
      await c.public.waitForTransactionReceipt({ hash: approved, pollingInterval: 50 });
      const to = randomAddress();
      const payment = await signedPayment({ network, key: payer.key, to, value: unit, relayer: relayers[network] });
      expect((await call("POST", "/verify", payment)).body).toEqual({ isValid: true, payer: payer.address });
      const settled = await call("POST", "/settle", payment);
      expect([settled.status, settled.body.success]).toEqual([200, true]);
      expect(await tokenBalance(network, c.token.address, to)).toBe(unit);
      expect(await tokenBalance(network, c.token.address, payer.address)).toBe(9n * unit);
    }
  });
});
