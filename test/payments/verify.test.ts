import { afterAll, describe, expect, test } from "bun:test";
import { relayerAbi } from "@relay402/client/wire/abis";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress } from "../support/chain";
import { jsonRpcProxy } from "../support/json-rpc-proxy";
import { startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

const unit = (network: (typeof NETWORK_NAMES)[number]) => 10n ** BigInt(chainOf(network).token.decimals);

for (const network of NETWORK_NAMES) {
  describe(`${network}: POST /verify`, () => {
    async function readyPayer() {
      const payer = await freshPayer(network);
      await approveRelayer(network, payer.key, 1000n * unit(network));
      return payer;
    }

    test("a valid payment is valid and names the payer", async () => {
      const payer = await readyPayer();
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: 3n * unit(network) });
      const response = await service.post("/verify", body);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ isValid: true, payer: payer.address });
      const v1 = await service.post("/api/v1/verify", body);
      expect(v1.body).toEqual(response.body);
    });

    const invalid = async (body: unknown, reason: string, message: RegExp) => {
      const response = await service.post("/verify", body);
      expect(response.status).toBe(200);
      expect(response.body.isValid).toBe(false);
      expect(response.body.invalidReason).toBe(reason);
      expect(response.body.invalidMessage).toMatch(message);
    };

    test("a corrupted signature is a signature_error", async () => {
      const payer = await readyPayer();
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: unit(network) });
      const sig = body.paymentPayload.payload.signature;
      body.paymentPayload.payload.signature =
        `${sig.slice(0, 10)}${sig[10] === "a" ? "b" : "a"}${sig.slice(11)}` as Hex;
      await invalid(body, "signature_error", /signature/);
    });

    test("a signer other than from is a signature_error", async () => {
      const payer = await readyPayer();
      const other = await freshPayer(network, { tokens: 0n, gas: false });
      const body = await signedPayment({
        network,
        key: payer.key,
        signerKey: other.key,
        to: randomAddress(),
        value: unit(network),
      });
      await invalid(body, "signature_error", /recover/);
    });

    test("a used nonce is a nonce_error", async () => {
      const payer = await readyPayer();
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: unit(network) });
      const settled = await service.post("/settle", body);
      expect(settled.status).toBe(200);
      await invalid(body, "nonce_error", /used or canceled/);
    });

    test("a canceled nonce is a nonce_error", async () => {
      const payer = await readyPayer();
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: unit(network) });
      const c = chainOf(network);
      const nonce = body.paymentPayload.payload.authorization.nonce as Hex;
      const signature = await privateKeyToAccount(payer.key).signTypedData({
        domain: { name: "relay402", version: "1", chainId: c.info.chainId, verifyingContract: c.info.relayer },
        types: {
          CancelAuthorization: [
            { name: "authorizer", type: "address" },
            { name: "nonce", type: "bytes32" },
          ],
        },
        primaryType: "CancelAuthorization",
        message: { authorizer: payer.address, nonce },
      });
      const hash = await c.walletFor(payer.key).writeContract({
        address: c.info.relayer,
        abi: relayerAbi,
        functionName: "cancelAuthorization",
        args: [payer.address, nonce, signature],
      });
      await c.public.waitForTransactionReceipt({ hash });
      await invalid(body, "nonce_error", /used or canceled/);
    });

    test("an authorization not yet valid fails the time window", async () => {
      const payer = await readyPayer();
      const now = Math.floor(Date.now() / 1000);
      const body = await signedPayment({
        network,
        key: payer.key,
        to: randomAddress(),
        value: unit(network),
        validAfter: now + 3600,
      });
      await invalid(body, "payment_verification_error", /not yet valid/);
    });

    test("an expired authorization fails the time window", async () => {
      const payer = await readyPayer();
      const now = Math.floor(Date.now() / 1000);
      const body = await signedPayment({
        network,
        key: payer.key,
        to: randomAddress(),
        value: unit(network),
        validAfter: now - 7200,
        validBefore: now - 10,
      });
      await invalid(body, "payment_verification_error", /expired/);
    });

    test("a token that is not whitelisted is refused", async () => {
      const payer = await readyPayer();
      // An address the relayer never whitelisted (every devnet test token is whitelisted on both networks).
      const body = await signedPayment({
        network,
        key: payer.key,
        to: randomAddress(),
        value: 1n,
        token: randomAddress(),
      });
      await invalid(body, "payment_verification_error", /not whitelisted/);
    });

    test("a balance below the value is refused", async () => {
      const payer = await readyPayer();
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: 5000n * unit(network) });
      await invalid(body, "payment_verification_error", /balance too low/);
    });

    test("an allowance below the value is refused", async () => {
      const payer = await freshPayer(network);
      await approveRelayer(network, payer.key, unit(network));
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: 2n * unit(network) });
      await invalid(body, "payment_verification_error", /allowance too low/);
    });

    test("a relayerContract that is not ours is refused before any other check", async () => {
      const payer = await readyPayer();
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: unit(network) });
      body.paymentRequirements.relayerContract = randomAddress();
      await invalid(body, "payment_verification_error", /relayerContract is not this network's relayer/);
      // A client holding the wrong relayer signed for the wrong domain and approved the wrong spender: that one
      // mistake is named rather than "signature does not recover" or "allowance too low".
      const unapproved = await freshPayer(network);
      const wrongRelayer = randomAddress();
      const wrongDomain = await signedPayment({
        network,
        key: unapproved.key,
        to: randomAddress(),
        value: unit(network),
        relayer: wrongRelayer,
      });
      wrongDomain.paymentRequirements.relayerContract = wrongRelayer;
      await invalid(
        wrongDomain,
        "payment_verification_error",
        new RegExp(`relayerContract is not this network's relayer \\(${chainOf(network).info.relayer}\\)`),
      );
      const settled = await service.post("/settle", wrongDomain);
      expect(settled.status).toBe(400);
      expect(settled.body.code).toBe("payment_verification_error");
      expect(settled.body.details).toEqual({ relayerContract: chainOf(network).info.relayer });
    });

    test("an allowance error names the spender, the allowance and the amount needed", async () => {
      const payer = await freshPayer(network);
      await approveRelayer(network, payer.key, unit(network));
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: 2n * unit(network) });
      const { relayer } = chainOf(network).info;
      await invalid(
        body,
        "payment_verification_error",
        new RegExp(`allowance too low: .*spender ${relayer} ${unit(network)}, the payment needs ${2n * unit(network)}`),
      );
      const settled = await service.post("/settle", body);
      expect(settled.status).toBe(400);
      expect(settled.body.code).toBe("payment_verification_error");
      expect(settled.body.details).toEqual({
        spender: relayer,
        allowance: unit(network).toString(),
        needed: (2n * unit(network)).toString(),
      });
    });

    test("a signature error shows the domain the service expected", async () => {
      const payer = await readyPayer();
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: unit(network) });
      const sig = body.paymentPayload.payload.signature;
      body.paymentPayload.payload.signature =
        `${sig.slice(0, 10)}${sig[10] === "a" ? "b" : "a"}${sig.slice(11)}` as Hex;
      const { relayer, chainId } = chainOf(network).info;
      await invalid(
        body,
        "signature_error",
        new RegExp(`domain \\{ name: "relay402", version: "1", chainId: ${chainId}, verifyingContract: ${relayer} \\}`),
      );
      const settled = await service.post("/settle", body);
      expect(settled.status).toBe(400);
      expect(settled.body.code).toBe("signature_error");
      expect(settled.body.details).toEqual({
        expectedDomain: { name: "relay402", version: "1", chainId, verifyingContract: relayer },
      });
    });
  });
}

describe("POST /verify: requests that cannot be evaluated", () => {
  let body: Awaited<ReturnType<typeof signedPayment>>;
  test("setup", async () => {
    const payer = await freshPayer("bsc");
    body = await signedPayment({ network: "bsc", key: payer.key, to: randomAddress(), value: 1n });
  });

  test("an unknown network is a validation_error naming the known ones; a known one not configured names the enabled", async () => {
    const response = await service.post("/verify", {
      ...body,
      paymentRequirements: { ...body.paymentRequirements, network: "solana" },
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("validation_error");
    expect(response.body.message).toBe(
      'paymentRequirements.network: "solana" is not one of bsc, base, bsc-testnet, base-sepolia',
    );
    expect(response.body.details).toEqual({ field: "paymentRequirements.network" });
    expect(response.body.doc_url).toMatch(/#validation_error$/);

    const notEnabled = await service.post("/verify", {
      ...body,
      paymentRequirements: { ...body.paymentRequirements, network: "bsc-testnet" },
    });
    expect(notEnabled.status).toBe(400);
    expect(notEnabled.body.message).toBe("network not enabled: bsc-testnet (valid: bsc, base)");
    expect(notEnabled.body.details).toEqual({ field: "paymentRequirements.network", validNetworks: ["bsc", "base"] });
  });

  const mutate = (path: string[], value: unknown) => {
    const copy = structuredClone(body) as Record<string, any>;
    let target = copy;
    for (const key of path.slice(0, -1)) target = target[key];
    const last = path.at(-1) as string;
    if (value === undefined) delete target[last];
    else target[last] = value;
    return copy;
  };

  const cases: [string[], unknown][] = [
    [["paymentPayload", "token"], "0x1234"],
    [["paymentPayload", "payload", "authorization", "from"], "not-an-address"],
    [["paymentPayload", "payload", "authorization", "to"], 42],
    [["paymentPayload", "payload", "authorization", "value"], "-1"],
    [["paymentPayload", "payload", "authorization", "value"], "1.5"],
    [["paymentPayload", "payload", "authorization", "value"], (2n ** 256n).toString()],
    [["paymentPayload", "payload", "authorization", "validAfter"], "soon"],
    [["paymentPayload", "payload", "authorization", "validBefore"], undefined],
    [["paymentPayload", "payload", "authorization", "nonce"], "0x1234"],
    [["paymentRequirements", "relayerContract"], undefined],
    [["paymentRequirements", "network"], undefined],
    [["paymentPayload", "payload", "signature"], undefined],
  ];
  for (const [path, value] of cases) {
    test(`${path.join(".")} = ${JSON.stringify(value)} is a 400 naming the field`, async () => {
      const response = await service.post("/verify", mutate(path, value));
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("validation_error");
      expect(response.body.details.field).toBe(path.join("."));
    });
  }

  test("a signature that is not hex is a 400 signature_error", async () => {
    for (const signature of ["hello", "0x123", "0x", `0x${"zz".repeat(65)}`]) {
      const response = await service.post("/verify", mutate(["paymentPayload", "payload", "signature"], signature));
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("signature_error");
    }
  });

  test("malformed JSON is a validation_error on the body", async () => {
    const response = await service.post("/verify", "{not json");
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "validation_error", details: { field: "body" } });
  });
});

describe("EOA /verify's read: the relayer's checkAuthorization in the verifies' JSON-RPC batch, at the service's time", () => {
  const network = "bsc";
  const rpc = jsonRpcProxy(chainOf(network).info.rpcUrl);
  const proxied = startTestService({}, (config) => {
    (config.networks.bsc as { rpcUrls: string[] }).rpcUrls = [rpc.url];
  });
  afterAll(() => {
    proxied.stop();
    rpc.stop();
  });

  test("four verifies at once: four checkAuthorization calls in one batch, each run at the time of now", async () => {
    const payer = await freshPayer(network);
    await approveRelayer(network, payer.key, 1000n * unit(network));
    const bodies = await Promise.all(
      Array.from({ length: 4 }, () =>
        signedPayment({ network, key: payer.key, to: randomAddress(), value: unit(network) }),
      ),
    );
    const relayer = chainOf(network).info.relayer.toLowerCase();
    const before = rpc.requests.length;
    const startedAt = Math.floor(Date.now() / 1000);
    const answers = await Promise.all(bodies.map((body) => proxied.post("/verify", body)));
    for (const answer of answers) expect(answer.body).toEqual({ isValid: true, payer: payer.address });

    const checks = rpc.requests
      .slice(before)
      .filter((calls) => calls.some((call) => call.method === "eth_call"))
      .map((calls) =>
        calls.filter((call) => (call.params?.[0] as { to?: string } | undefined)?.to?.toLowerCase() === relayer),
      );
    // One request carried all four (a batch), not four requests.
    expect(checks.map((calls) => calls.length)).toEqual([4]);
    for (const call of checks[0] ?? []) {
      const [, block, , overrides] = call.params as [unknown, string, unknown, { time: string }];
      expect(block).toBe("latest");
      const time = Number(BigInt(overrides.time));
      expect(time).toBeGreaterThanOrEqual(startedAt);
      expect(time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    }
  });
});
