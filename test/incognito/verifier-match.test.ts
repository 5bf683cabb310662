import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { createCircuitFiles } from "../../src/incognito/circuit-files";
import { poolVerifierProblem, type VerificationKey } from "../../src/incognito/verifier-match";
import { startServer } from "../../src/server";
import { chainOf, NETWORK_NAMES, randomAddress } from "../support/chain";
import { getTestDevnet } from "../support/devnet";

// The start checks that each network's privacy pool verifies the circuit the service serves: its verifier's code
// holds every constant of the served verification key. A pool deployed with another setup's verifier would refuse
// every proof a client makes with the served circuit, so incognito is switched off there with the reason.

const key = async () => (await createCircuitFiles().verificationKey()) as VerificationKey;

function problemOn(network: "bsc" | "base", pool: Address, verificationKey: VerificationKey) {
  const c = chainOf(network);
  return poolVerifierProblem(
    `networks.${network}.contracts.privacyPool`,
    pool,
    verificationKey,
    async (to: Address, data: Hex) => (await c.public.call({ to, data })).data,
    (address: Address) => c.public.getCode({ address }),
  );
}

/** Runtime code answering every call with `address` as one ABI word: a stand-in pool whose verifier() is that. */
const answering = (address: Address): Hex => `0x73${address.slice(2)}60005260206000f3`;

describe("the privacy pool's verifier against the served circuit", () => {
  for (const network of NETWORK_NAMES) {
    test(`${network}: the devnet pool's verifier holds every constant of the served key`, async () => {
      expect(await problemOn(network, chainOf(network).info.privacyPool, await key())).toBeUndefined();
    });
  }

  test("a key with one coordinate changed is not the verifier's: named with the count of constants missing", async () => {
    const changed = structuredClone(await key());
    changed.IC[1] = [(BigInt(changed.IC[1]?.[0] ?? "0") + 1n).toString(), changed.IC[1]?.[1] ?? "0", "1"];
    expect(await problemOn("bsc", chainOf("bsc").info.privacyPool, changed)).toMatch(
      /^networks\.bsc\.contracts\.privacyPool's verifier \(0x[0-9a-fA-F]{40}\) was not made from the served circuit unshield-[0-9a-f]+'s verification key \(1 of its constants are not in the verifier's code\)/,
    );
  });

  test("a pool whose verifier is another contract, one whose verifier has no code, and an address with no pool", async () => {
    const c = chainOf("bsc");
    const otherVerifier = randomAddress();
    await c.test.setCode({ address: otherVerifier, bytecode: answering(c.info.relayer) });
    const poolOfOther = randomAddress();
    await c.test.setCode({ address: poolOfOther, bytecode: answering(c.info.relayer) });
    expect(await problemOn("bsc", poolOfOther, await key())).toMatch(/was not made from the served circuit/);

    const poolOfNothing = randomAddress();
    const nothing = randomAddress();
    await c.test.setCode({ address: poolOfNothing, bytecode: answering(nothing) });
    expect(await problemOn("bsc", poolOfNothing, await key())).toBe(
      `networks.bsc.contracts.privacyPool's verifier (${nothing}) has no code`,
    );

    const empty = randomAddress();
    expect(await problemOn("bsc", empty, await key())).toBe(
      `networks.bsc.contracts.privacyPool (${empty}) has no verifier() (is it relay402's PrivacyPool?)`,
    );
  });

  test("a service whose bsc pool verifies another circuit starts, switches incognito off on bsc with the reason, and keeps base's", async () => {
    const c = chainOf("bsc");
    const pool = randomAddress();
    await c.test.setCode({ address: pool, bytecode: answering(c.info.relayer) });
    const config = configFromManifest(
      { ...getTestDevnet().devnet.manifest, service: `http://127.0.0.1:${await freePort()}` },
      {
        databasePath: join(mkdtempSync(join(tmpdir(), "relay402-verifier-")), "relay402.sqlite"),
        rateLimitPerMinute: 1_000_000,
        logRequests: false,
      },
    );
    (config.networks.bsc as { contracts: { privacyPool?: Address } }).contracts.privacyPool = pool;
    const service = await startServer(config, { silent: true });
    try {
      const health = (await (await fetch(`${service.url}/health`)).json()) as any;
      expect(health.status).toBe("degraded");
      expect(health.networks.bsc.unavailable.incognito).toContain("was not made from the served circuit");
      expect(health.networks.bsc.capabilities).not.toContain("incognito");
      expect(health.networks.base.unavailable).toBeUndefined();
      expect(health.networks.base.capabilities).toContain("incognito");
      const refused = await fetch(`${service.url}/wallet/incognito/verify`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          walletAddress: randomAddress(),
          incognitoData: { type: "shield", token: c.token.address, amount: "1", precommitment: `0x${"1".repeat(64)}` },
          paymentRequirements: { network: "bsc" },
        }),
      });
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as any;
      expect(body.code).toBe("validation_error");
      expect(body.message).toContain("was not made from the served circuit");
    } finally {
      await service.stop();
    }
  });
});
