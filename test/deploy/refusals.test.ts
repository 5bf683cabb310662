import { afterAll, describe, expect, test } from "bun:test";
import { signedPayment } from "../support/authorization";
import { chainOf } from "../support/chain";
import { startTestService } from "../support/service";
import { adminHeaders, eoaDeployment, randomOwner, randomSalt } from "./support";

const service = startTestService();
afterAll(() => service.stop());
const network = "bsc" as const;

describe("deployment refusals", () => {
  test("the four deploy verify/settle endpoints need the admin key; quote, claim and queries do not", async () => {
    const flow = await eoaDeployment(service, { network, salts: [randomSalt()] });
    for (const path of ["/deploy/verify", "/deploy/settle", "/deploy/wallet/verify", "/api/v1/deploy/wallet/settle"]) {
      for (const headers of [{}, { "x-admin-api-key": "wrong-key-wrong-key" }] as Record<string, string>[]) {
        const response = await service.post(path, flow.body, headers);
        expect(response.status).toBe(401);
        expect(response.body.code).toBe("unauthorized");
      }
    }
    expect(
      (
        await service.post("/deploy/quote", {
          network,
          deployment: { ownerAddress: flow.owner, salts: [randomSalt()], token: flow.c.token.address },
        })
      ).status,
    ).toBe(200);
    expect((await service.post("/wallet/claim", { payerAddress: flow.payer.address })).status).toBe(404);
  });

  test("11 salts, a bad salt, duplicate salts and an unknown token are validation errors naming the field", async () => {
    const c = chainOf(network);
    const owner = randomOwner();
    const quote = (salts: string[], token: string = c.token.address) =>
      service.post("/deploy/quote", { network, deployment: { ownerAddress: owner, salts, token } });
    const eleven = await quote(Array.from({ length: 11 }, randomSalt));
    expect(eleven.status).toBe(400);
    expect(eleven.body).toMatchObject({ code: "validation_error", details: { field: "deployment.salts" } });
    const bad = await quote([randomSalt(), "0x1234"]);
    expect(bad.body).toMatchObject({ code: "validation_error", details: { field: "deployment.salts.1" } });
    const salt = randomSalt();
    expect((await quote([salt, salt.toUpperCase().replace("0X", "0x")])).body.code).toBe("validation_error");
    expect((await quote([randomSalt()], owner)).body).toMatchObject({
      code: "validation_error",
      details: { field: "deployment.token" },
    });

    const flow = await eoaDeployment(service, { network, salts: [randomSalt()] });
    const body = {
      ...flow.body,
      paymentRequirements: {
        ...flow.body.paymentRequirements,
        deployment: { ...flow.body.paymentRequirements.deployment, salts: Array.from({ length: 11 }, randomSalt) },
      },
    };
    const verify = await service.post("/deploy/verify", body, adminHeaders(service));
    expect(verify.status).toBe(400);
    expect(verify.body.code).toBe("validation_error");
    const unknownNetwork = await service.post(
      "/deploy/verify",
      { ...flow.body, paymentRequirements: { ...flow.body.paymentRequirements, network: "eth" } },
      adminHeaders(service),
    );
    expect(unknownNetwork.body.code).toBe("validation_error");
  });

  test("funding payloads that do not match the salts", async () => {
    const unit = 10n ** 18n;
    const flow = await eoaDeployment(service, { network, salts: [randomSalt(), randomSalt()], funding: [unit, unit] });
    const missing = { ...flow.body, paymentPayload: flow.body.paymentPayload.slice(0, 2) };
    const response = await service.post("/deploy/verify", missing, adminHeaders(service));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "validation_error", details: { field: "paymentPayload" } });
    expect(response.body.message).toContain("funding payloads do not match the salts");

    const swapped = {
      ...flow.body,
      paymentPayload: [flow.body.paymentPayload[0], flow.body.paymentPayload[2], flow.body.paymentPayload[1]],
    };
    const verify = await service.post("/deploy/verify", swapped, adminHeaders(service));
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({ isValid: false, invalidReason: "payment_verification_error" });
    expect(verify.body.invalidMessage).toContain(`must pay wallet ${flow.wallets[0]!.address}`);
    const settle = await service.post("/deploy/settle", { ...swapped, wallets: flow.wallets }, adminHeaders(service));
    expect(settle.status).toBe(400);

    const unfunded = {
      ...flow.body,
      paymentRequirements: {
        ...flow.body.paymentRequirements,
        deployment: { ...flow.body.paymentRequirements.deployment, fundingRequested: false },
      },
    };
    expect((await service.post("/deploy/verify", unfunded, adminHeaders(service))).body.code).toBe("validation_error");
  });

  test("a fee payload of the wrong value or to the wrong recipient", async () => {
    const flow = await eoaDeployment(service, { network, salts: [randomSalt()] });
    const wrongValue = await signedPayment({
      network,
      key: flow.payer.key,
      to: flow.quote.feeRecipient,
      value: flow.fee - 1n,
    });
    const wrongRecipient = await signedPayment({ network, key: flow.payer.key, to: randomOwner(), value: flow.fee });
    for (const [payload, message] of [
      [wrongValue.paymentPayload, "exactly the deployment fee"],
      [wrongRecipient.paymentPayload, "must pay the fee recipient"],
    ] as const) {
      const body = { ...flow.body, paymentPayload: [payload] };
      const verify = await service.post("/deploy/verify", body, adminHeaders(service));
      expect(verify.status).toBe(200);
      expect(verify.body).toMatchObject({ isValid: false, invalidReason: "payment_verification_error" });
      expect(verify.body.invalidMessage).toContain(message);
      const settle = await service.post(
        "/deploy/settle",
        { ...body, wallets: verify.body.wallets },
        adminHeaders(service),
      );
      expect(settle.status).toBe(400);
      expect(settle.body.code).toBe("payment_verification_error");
    }
    const unapproved = await eoaDeployment(service, { network, salts: [randomSalt()], approve: false });
    const verify = await service.post("/deploy/verify", unapproved.body, adminHeaders(service));
    expect(verify.body).toMatchObject({ isValid: false, invalidReason: "payment_verification_error" });
    expect(verify.body.invalidMessage).toContain("allowance too low");
    const tampered = structuredClone(flow.body);
    tampered.paymentPayload[0]!.payload.signature = "0xzz";
    expect((await service.post("/deploy/verify", tampered, adminHeaders(service))).body.code).toBe("signature_error");
  });

  test("wallets that differ from what verify returned; a deployed wallet cannot be paid for again", async () => {
    const flow = await eoaDeployment(service, { network, salts: [randomSalt(), randomSalt()] });
    const verify = await service.post("/deploy/verify", flow.body, adminHeaders(service));
    for (const wallets of [
      verify.body.wallets.slice(0, 1),
      [verify.body.wallets[1], verify.body.wallets[0]],
      [{ ...verify.body.wallets[0], fundingAmount: "5" }, verify.body.wallets[1]],
    ]) {
      const settle = await service.post("/deploy/settle", { ...flow.body, wallets }, adminHeaders(service));
      expect(settle.status).toBe(400);
      expect(settle.body.code).toBe("validation_error");
      expect(settle.body.message).toContain("wallets do not match");
    }
    const settle = await service.post(
      "/deploy/settle",
      { ...flow.body, wallets: verify.body.wallets },
      adminHeaders(service),
    );
    expect(settle.status).toBe(200);

    const second = await eoaDeployment(service, {
      network,
      salts: [flow.body.paymentRequirements.deployment.salts[1]!],
      owner: flow.owner,
    });
    const refused = await service.post("/deploy/verify", second.body, adminHeaders(service));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("already paid for");
    const refusedSettle = await service.post(
      "/deploy/settle",
      { ...second.body, wallets: second.wallets },
      adminHeaders(service),
    );
    expect(refusedSettle.body.code).toBe("validation_error");
  });

  test("claim needs paymentTxHash or payerAddress; nothing pending is 404", async () => {
    const none = await service.post("/wallet/claim", {});
    expect(none.status).toBe(400);
    expect(none.body.code).toBe("validation_error");
    const missing = await service.post("/wallet/claim", { paymentTxHash: randomSalt() });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("not_found");
  });
});
