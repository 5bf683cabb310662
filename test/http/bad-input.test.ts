// Bad input gets a clear 4xx in the envelope, naming the field; answers spell addresses one way (EIP-55).
import { afterAll, describe, expect, test } from "bun:test";
import { type Address, getAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { adminHeaders, eoaDeployment, randomOwner, randomSalt, walletDeployment } from "../deploy/support";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress } from "../support/chain";
import { startTestService } from "../support/service";
import { deployFundedWallet } from "../support/wallet";

const service = startTestService();
afterAll(() => service.stop());

const ADDRESS_ANYWHERE = /0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/g;

/** Every 20-byte hex string standing alone as a JSON string value of an answer. */
function addressesIn(value: unknown, found: string[] = []): string[] {
  if (typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value)) found.push(value);
  else if (Array.isArray(value)) for (const item of value) addressesIn(item, found);
  else if (value && typeof value === "object") for (const item of Object.values(value)) addressesIn(item, found);
  return found;
}

const expectChecksummed = (answer: unknown) => {
  const addresses = addressesIn(answer);
  expect(addresses.length).toBeGreaterThan(0);
  for (const address of addresses) expect(address).toBe(getAddress(address));
};

const lowercase = <T>(value: T): T =>
  JSON.parse(JSON.stringify(value).replace(ADDRESS_ANYWHERE, (address) => address.toLowerCase()));

describe("a number where decisions.md says a number", () => {
  test("validAfter or validBefore sent as a numeric string is a wrong type at /verify, /settle and /swap/verify", async () => {
    const payer = await freshPayer("bsc");
    const body = await signedPayment({ network: "bsc", key: payer.key, to: randomAddress(), value: 1000n });
    for (const field of ["validAfter", "validBefore"] as const) {
      const authorization = body.paymentPayload.payload.authorization;
      const changed = {
        ...body,
        paymentPayload: {
          ...body.paymentPayload,
          payload: {
            ...body.paymentPayload.payload,
            authorization: { ...authorization, [field]: String(authorization[field]) },
          },
        },
      };
      for (const path of ["/verify", "/settle"]) {
        const response = await service.post(path, changed);
        expect(response.status).toBe(400);
        expect(response.body.code).toBe("validation_error");
        expect(response.body.details.field).toBe(`paymentPayload.payload.authorization.${field}`);
      }
    }
    const swap = await service.post("/swap/verify", {
      swapPayload: {
        authorization: {
          from: payer.address,
          sellToken: chainOf("bsc").token.address,
          buyToken: randomAddress(),
          sellAmount: "1000",
          minBuyAmount: "1",
          recipient: payer.address,
          fee: "0",
          router: randomAddress(),
          routeHash: `0x${"33".repeat(32)}`,
          validAfter: "0",
          validBefore: 2_000_000_000,
          nonce: `0x${"11".repeat(32)}`,
        },
        signature: `0x${"22".repeat(65)}`,
        path: "0x",
      },
      swapRequirements: { network: "bsc", relayerContract: chainOf("bsc").info.relayer },
    });
    expect(swap.status).toBe(400);
    expect(swap.body.details.field).toBe("swapPayload.authorization.validAfter");
  });
});

describe("content type", () => {
  test("a JSON body sent as text/plain, or with no content type, is refused naming the content type", async () => {
    const body = JSON.stringify({ paymentPayload: {}, paymentRequirements: {} });
    for (const headers of [{ "content-type": "text/plain" }, {}] as Record<string, string>[]) {
      const response = await service.app.handle(
        new Request("http://localhost/verify", { method: "POST", headers, body: new TextEncoder().encode(body) }),
      );
      const answer = (await response.json()) as { code: string; message: string; details: { field: string } };
      expect(response.status).toBe(400);
      expect(answer.code).toBe("validation_error");
      expect(answer.details.field).toBe("content-type");
      expect(answer.message).toContain("application/json");
      expect(answer.message).not.toContain("missing");
      if (headers["content-type"]) expect(answer.message).toContain("text/plain");
    }
  });
});

describe("enums name their allowed values", () => {
  test("?network=solana, an incognito type and a swap mode outside their lists", async () => {
    const owner = randomOwner();
    const network = await service.get(`/wallet/${owner}?network=solana`);
    expect(network.status).toBe(400);
    expect(network.body.details.field).toBe("network");
    expect(network.body.message).toContain('"solana" is not one of bsc, base, bsc-testnet, base-sepolia');

    const incognito = await service.post("/wallet/incognito/verify", {
      walletAddress: randomAddress(),
      incognitoData: { type: "deposit" },
      paymentRequirements: { network: "bsc" },
    });
    expect(incognito.status).toBe(400);
    expect(incognito.body.details.field).toBe("incognitoData.type");
    expect(incognito.body.message).toContain('"deposit" is not one of shield, unshield');

    const quote = await service.post("/swap/quote", {
      network: "bsc",
      sellToken: chainOf("bsc").token.address,
      buyToken: randomAddress(),
      sellAmount: "1000",
      mode: "custodial",
    });
    expect(quote.status).toBe(400);
    expect(quote.body.details.field).toBe("mode");
    expect(quote.body.message).toContain('"custodial" is not one of eoa, wallet');
    for (const answer of [network, incognito, quote]) expect(answer.body.message).not.toContain("'string'");
  });
});

describe("addresses in answers are EIP-55", () => {
  test("/verify and /settle of a body spelled in lowercase answer checksummed addresses", async () => {
    const payer = await freshPayer("base");
    await approveRelayer("base", payer.key, 10n ** 18n);
    const body = lowercase(await signedPayment({ network: "base", key: payer.key, to: randomAddress(), value: 1000n }));
    expect(body.paymentPayload.payload.authorization.from).toBe(payer.address.toLowerCase() as Address);
    const verified = await service.post("/verify", body);
    expect(verified.status).toBe(200);
    expect(verified.body.isValid).toBe(true);
    expect(verified.body.payer).toBe(payer.address);
    const settled = await service.post("/settle", body);
    expect(settled.status).toBe(200);
    expect(settled.body.payer).toBe(payer.address);
    expect(settled.body.payment.token).toBe(getAddress(body.paymentPayload.token));
    expectChecksummed(settled.body);
    // A replay answers from the store, which kept the spelling it was given.
    const replayed = await service.post("/settle", body);
    expect(replayed.body.transaction).toBe(settled.body.transaction);
    expectChecksummed(replayed.body);
  });

  test("/config, /supported, /deploy/quote and the wallet queries", async () => {
    const owner = randomOwner().toLowerCase() as Address;
    const quote = await service.post("/deploy/quote", {
      network: "bsc",
      deployment: { ownerAddress: owner, salts: [randomSalt()], token: chainOf("bsc").token.address.toLowerCase() },
    });
    expect(quote.status).toBe(200);
    for (const answer of [
      await service.get("/config"),
      await service.get("/supported"),
      quote,
      await service.get(`/wallet/${owner}/master`),
    ]) {
      expect(answer.status).toBe(200);
      expectChecksummed(answer.body);
    }
  });
});

describe("deployments", () => {
  test("/deploy/wallet/settle needs userOp.signature equal to the signature, as /wallet/settle does", async () => {
    const flow = await walletDeployment(service, "bsc", [1000n]);
    const response = await service.post(
      "/deploy/wallet/settle",
      { ...flow.body, userOp: { ...flow.body.userOp, signature: "0x" } },
      adminHeaders(service),
    );
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("validation_error");
    expect(response.body.details.field).toBe("signature");
  });

  test("/deploy/verify answers payer only for a recovered signer", async () => {
    const flow = await eoaDeployment(service, { network: "bsc", salts: [randomSalt()] });
    const valid = await service.post("/deploy/verify", flow.body, adminHeaders(service));
    expect(valid.status).toBe(200);
    expect(valid.body.isValid).toBe(true);
    expect(valid.body.payer).toBe(flow.payer.address);

    // The fee payload claims a `from` whose key did not sign it.
    const stranger = privateKeyToAccount(`0x${"42".repeat(32)}` as Hex).address;
    const forged = structuredClone(flow.body);
    (forged.paymentPayload[0] as (typeof forged.paymentPayload)[number]).payload.authorization.from = stranger;
    const invalid = await service.post("/deploy/verify", forged, adminHeaders(service));
    expect(invalid.status).toBe(200);
    expect(invalid.body.isValid).toBe(false);
    expect(invalid.body.invalidReason).toBe("signature_error");
    expect(invalid.body).not.toHaveProperty("payer");
  });

  test("a denied owner at /deploy/wallet/verify is named by the field of that body: the paying wallet", async () => {
    const payer = await deployFundedWallet("base", 10n ** 20n);
    for (let i = 0; i < service.config.denyAfterReverts; i++)
      await service.services.deny.recordRevert("base", "owner", payer.owner.address, "test");
    const response = await service.post(
      "/deploy/wallet/verify",
      {
        paymentRequirements: {
          network: "base",
          deployment: {
            ownerAddress: randomOwner(),
            salts: [randomSalt()],
            token: chainOf("base").token.address,
            payerAddress: payer.wallet,
          },
        },
      },
      adminHeaders(service),
    );
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/refused after repeated failed settlements/);
    expect(response.body.details.field).toBe("paymentRequirements.deployment.payerAddress");
  });
});

describe("OpenAPI", () => {
  test("401 is listed exactly on the routes that take the admin key", async () => {
    const document = (await service.get("/openapi/json")).body as {
      paths: Record<string, Record<string, { responses?: Record<string, unknown>; security?: unknown[] }>>;
    };
    let admin = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const needsKey = (operation.security?.length ?? 0) > 0;
        if (needsKey) admin++;
        expect({ path, method, lists401: Object.hasOwn(operation.responses ?? {}, "401") }).toEqual({
          path,
          method,
          lists401: needsKey,
        });
      }
    }
    expect(admin).toBeGreaterThanOrEqual(4);
  });
});
