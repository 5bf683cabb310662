import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import type { NetworkName } from "../../scripts/devnet/start";
import type { Config } from "../../src/config/schema";
import { startServer } from "../../src/server";
import { swapWiringProblem } from "../../src/swap/swap-wiring";
import { chainOf, NETWORK_NAMES, randomAddress } from "../support/chain";
import { getTestDevnet } from "../support/devnet";
import { jsonCaller } from "../support/json-call";

// The start checks that every configured swap router is whitelisted on the relayer with its kind and that the
// factory and init-code hash compute real pools. A mistake switches swaps off on that network (degraded in
// /health with the reason, a clear 400 from the swap routes) instead of letting quotes look fine and every
// settle revert, and it does not stop the service.

async function devnetConfig(change: (config: Config) => void = () => undefined): Promise<Config> {
  const manifest = getTestDevnet().devnet.manifest;
  const config = configFromManifest(
    { ...manifest, service: `http://127.0.0.1:${await freePort()}` },
    {
      databasePath: join(mkdtempSync(join(tmpdir(), "relay402-swap-wiring-")), "relay402.sqlite"),
      rateLimitPerMinute: 1_000_000,
      logRequests: false,
    },
  );
  change(config);
  return config;
}

const swapOf = (config: Config, network: NetworkName) => {
  const swap = config.networks[network]?.swap;
  if (!swap) throw new Error(`the ${network} devnet config has no swaps`);
  return swap;
};

/** The check as the start runs it, against the test devnet. */
function problemOf(config: Config, network: NetworkName) {
  const c = chainOf(network);
  const networkConfig = config.networks[network];
  if (!networkConfig?.swap) throw new Error("no swaps");
  return swapWiringProblem(
    network,
    networkConfig.contracts.relayer!,
    networkConfig.swap,
    networkConfig.tokens.map((token) => token.address),
    async (to: Address, data: Hex) => (await c.public.call({ to, data })).data,
  );
}

describe("swap wiring, checked at start", () => {
  for (const network of NETWORK_NAMES) {
    test(`${network}: the devnet's own routers, factories and init-code hashes pass`, async () => {
      expect(await problemOf(await devnetConfig(), network)).toBeUndefined();
    });
  }

  test("a router the relayer does not whitelist, one whitelisted as the other kind, and a wrong init-code hash are each named", async () => {
    const stranger = randomAddress();
    const notWhitelisted = await devnetConfig((config) => {
      swapOf(config, "bsc").routers[0]!.address = stranger;
    });
    expect(await problemOf(notWhitelisted, "bsc")).toBe(
      `networks.bsc.swap.routers.0 (${stranger}, v2) is not whitelisted on the relayer: its owner calls setRouter(${stranger}, 1)`,
    );

    const swapped = await devnetConfig((config) => {
      const [v2, v3] = swapOf(config, "base").routers;
      v2!.address = v3!.address; // the V3 router configured as the V2 one
    });
    expect(await problemOf(swapped, "base")).toMatch(
      /^networks\.base\.swap\.routers\.0 \(0x[0-9a-fA-F]{40}\) is whitelisted on the relayer as v3, configured as v2$/,
    );

    const wrongHash = await devnetConfig((config) => {
      const [v2, v3] = swapOf(config, "bsc").routers;
      v3!.initCodeHash = v2!.initCodeHash; // V2's pair hash where V3's pool hash belongs
    });
    expect(await problemOf(wrongHash, "bsc")).toBe(
      "networks.bsc.swap.routers.1.factory and .initCodeHash compute no existing pool for any pair of the network's tokens and connectors (wrong factory, pool deployer or init-code hash?)",
    );
  });

  test("a service whose bsc router is not whitelisted starts, reports degraded with the reason, and refuses bsc swaps with a 400; base swaps still quote", async () => {
    const stranger = randomAddress();
    const config = await devnetConfig((c) => {
      swapOf(c, "bsc").routers[0]!.address = stranger;
    });
    const service = await startServer(config, { silent: true });
    try {
      const call = jsonCaller(service.url);
      const health = await call("GET", "/health");
      expect(health.status).toBe(200);
      expect(health.body.status).toBe("degraded");
      expect(health.body.networks.bsc.rpc).toBe("ok");
      // The devnet's anvil traces mined transactions: a swap's revert cause is read in its block.
      expect(health.body.networks.bsc.swap).toEqual({
        status: "unavailable",
        reason: `networks.bsc.swap.routers.0 (${stranger}, v2) is not whitelisted on the relayer: its owner calls setRouter(${stranger}, 1)`,
        revertCauses: "traced",
      });
      expect(health.body.networks.base.swap).toEqual({ status: "ok", revertCauses: "traced" });

      const quote = (network: NetworkName) =>
        call("POST", "/swap/quote", {
          network,
          sellToken: chainOf(network).token.address,
          buyToken: chainOf(network).info.dex?.wrappedNative,
          sellAmount: (10n ** 18n).toString(),
        });
      const refused = await quote("bsc");
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe("validation_error");
      expect(refused.body.details.field).toBe("network");
      expect(refused.body.message).toBe(`swaps are unavailable on bsc: ${health.body.networks.bsc.swap.reason}`);
      expect((await quote("base")).status).toBe(200);

      // verify and settle pass through the same gate: refused before any signature or chain work.
      const swapBody = {
        swapPayload: {
          authorization: {
            from: randomAddress(),
            sellToken: chainOf("bsc").token.address,
            buyToken: chainOf("bsc").info.dex?.wrappedNative,
            sellAmount: "1000000000000000000",
            minBuyAmount: "1",
            recipient: randomAddress(),
            fee: "10000000000000000",
            router: randomAddress(),
            routeHash: `0x${"33".repeat(32)}`,
            validAfter: 0,
            validBefore: Math.floor(Date.now() / 1000) + 600,
            nonce: `0x${"11".repeat(32)}`,
          },
          signature: `0x${"22".repeat(65)}`,
          path: `0x${"44".repeat(40)}`,
        },
        swapRequirements: { network: "bsc", relayerContract: chainOf("bsc").info.relayer },
      };
      for (const path of ["/swap/verify", "/swap/settle"]) {
        const answer = await call("POST", path, swapBody);
        expect([answer.status, answer.body.code, answer.body.details?.field]).toEqual([
          400,
          "validation_error",
          "swapRequirements.network",
        ]);
      }
    } finally {
      await service.stop();
    }
  });
});
