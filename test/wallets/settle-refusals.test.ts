import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { numberToHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { freePort } from "../../scripts/devnet/ports";
import { encodeConfig } from "../../src/config/load";
import { issuedUserOps } from "../../src/db/schema";
import { chainOf, NETWORK_NAMES, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import { deployFundedWallet, expectRefusal, randomAddress, settleBody, units, verifyBody } from "./support";

const service = startTestService();
afterAll(() => service.stop());

const bump = (hex: string) => numberToHex(BigInt(hex) + 1n);
/** Flips the last hex digit: same length, different value. */
const flipLast = (hex: string) => hex.slice(0, -1) + (hex.endsWith("0") ? "1" : "0");

for (const network of NETWORK_NAMES) {
  describe(`${network}: /wallet/settle refusals`, () => {
    const token = chainOf(network).token.address;

    async function issued(amount = 1n) {
      const { owner, wallet } = await deployFundedWallet(network, units(network, 100n));
      const to = randomAddress();
      const verified = await service.post(
        "/wallet/verify",
        verifyBody(network, wallet, [{ to, amount: units(network, amount) }]),
      );
      expect(verified.status).toBe(200);
      return { owner, wallet, to, verified: verified.body, body: await settleBody(verified.body, owner) };
    }

    test("a changed field (callData, gas, paymaster, nonce) is refused naming the field, and nothing is sent", async () => {
      const { owner, to, verified, body } = await issued();
      const tampered: [string, (op: Record<string, string>) => Record<string, string>][] = [
        ["callData", (op) => ({ ...op, callData: flipLast(op.callData!) })],
        ["callGasLimit", (op) => ({ ...op, callGasLimit: bump(op.callGasLimit!) })],
        ["maxFeePerGas", (op) => ({ ...op, maxFeePerGas: bump(op.maxFeePerGas!) })],
        ["paymasterData", (op) => ({ ...op, paymasterData: flipLast(op.paymasterData!) })],
        ["paymaster", (op) => ({ ...op, paymaster: randomAddress() })],
        ["paymasterPostOpGasLimit", (op) => ({ ...op, paymasterPostOpGasLimit: bump(op.paymasterPostOpGasLimit!) })],
        ["nonce", (op) => ({ ...op, nonce: bump(op.nonce!) })],
      ];
      for (const [field, change] of tampered) {
        const userOp = change(verified.userOp);
        // A client would sign what it sends: the signature is valid for the changed UserOp's own hash, and still refused.
        const response = await service.post("/wallet/settle", {
          userOp: { ...userOp, signature: body.signature },
          signature: body.signature,
        });
        expectRefusal(response, 400, "validation_error", `userOp.${field}`);
        expect(response.body.message).toContain(field);
      }
      expect(await tokenBalance(network, token, to)).toBe(0n);
      // The untouched UserOp still settles.
      const settled = await service.post("/wallet/settle", await settleBody(verified, owner));
      expect(settled.status).toBe(200);
    });

    test("a signature by another key", async () => {
      const { verified } = await issued();
      const body = await settleBody(verified, privateKeyToAccount(generatePrivateKey()));
      const response = await service.post("/wallet/settle", body);
      expectRefusal(response, 400, "validation_error", "signature");
      expect(response.body.message).toMatch(/owner/);
    });

    test("a top-level signature that differs from userOp.signature", async () => {
      const { verified, body } = await issued();
      const other = await settleBody(verified, privateKeyToAccount(generatePrivateKey()));
      expectRefusal(
        await service.post("/wallet/settle", { ...body, signature: other.signature }),
        400,
        "validation_error",
        "signature",
      );
    });

    test("quantities wider than the packed UserOp holds are validation errors naming the field", async () => {
      const { body } = await issued();
      const wide = `0x${"f".repeat(33)}`;
      for (const field of ["callGasLimit", "verificationGasLimit", "maxFeePerGas", "paymasterVerificationGasLimit"]) {
        expectRefusal(
          await service.post("/wallet/settle", { ...body, userOp: { ...body.userOp, [field]: wide } }),
          400,
          "validation_error",
          `userOp.${field}`,
        );
      }
      expectRefusal(
        await service.post("/wallet/settle", { ...body, userOp: { ...body.userOp, nonce: "0xzz" } }),
        400,
        "validation_error",
        "userOp.nonce",
      );
    });

    test("a malformed signature", async () => {
      const { body } = await issued();
      const short = "0x1234";
      expectRefusal(
        await service.post("/wallet/settle", { userOp: { ...body.userOp, signature: short }, signature: short }),
        400,
        "validation_error",
        "signature",
      );
      expectRefusal(
        await service.post("/wallet/settle", { userOp: body.userOp }),
        400,
        "validation_error",
        "signature",
      );
    });

    test("an unknown UserOp (never issued)", async () => {
      const { body } = await issued();
      const stranger = { ...body.userOp, sender: randomAddress() };
      const response = await service.post("/wallet/settle", { userOp: stranger, signature: body.signature });
      expectRefusal(response, 400, "validation_error", "userOp");
      expect(response.body.message).toMatch(/unknown UserOp/);
    });

    test("an expired UserOp: call verify again", async () => {
      const { to, verified, body } = await issued();
      service.db
        .update(issuedUserOps)
        .set({ expiresAt: Math.floor(Date.now() / 1000) - 1 })
        .where(eq(issuedUserOps.userOpHash, verified.userOpHash))
        .run();
      const response = await service.post("/wallet/settle", body);
      expectRefusal(response, 400, "validation_error");
      expect(response.body.message).toMatch(/expired, call verify again/);
      expect(await tokenBalance(network, token, to)).toBe(0n);
    });

    test("a second UserOp built before the first was sent: userop_error (same nonce), and again on a repeat", async () => {
      const { owner, wallet, verified: first, body: firstBody } = await issued(1n);
      const second = await service.post(
        "/wallet/verify",
        verifyBody(network, wallet, [{ to: randomAddress(), amount: units(network, 2n) }]),
      );
      expect(second.body.userOp.nonce).toBe(first.userOp.nonce);
      expect((await service.post("/wallet/settle", firstBody)).status).toBe(200);
      const secondBody = await settleBody(second.body, owner);
      const refused = await service.post("/wallet/settle", secondBody);
      expectRefusal(refused, 400, "userop_error");
      expect(refused.body.message).toMatch(/bundler rejected/);
      expect(refused.body.details.reason).toMatch(/AA25|nonce/i);
      expect((await service.post("/wallet/settle", secondBody)).body).toEqual(refused.body);
    });
  });
}

describe("the bundler down at settle", () => {
  test("answers an envelope error promptly, sends nothing, and the UserOp settles once the bundler is back", async () => {
    const network = "base";
    const closed = `http://127.0.0.1:${await freePort()}`;
    // Same database, same chain, a bundler URL nobody listens on.
    const { networks } = encodeConfig(service.config);
    const broken = startTestService({
      databasePath: service.databasePath,
      networks: { ...networks, base: { ...networks.base!, bundlerUrl: closed } },
    });
    try {
      const { owner, wallet } = await deployFundedWallet(network, units(network, 10n));
      const to = randomAddress();
      const verified = await service.post(
        "/wallet/verify",
        verifyBody(network, wallet, [{ to, amount: units(network, 1n) }]),
      );
      const body = await settleBody(verified.body, owner);
      const started = performance.now();
      const response = await broken.post("/wallet/settle", body);
      expectRefusal(response, 500, "blockchain_error");
      expect(JSON.stringify(response.body)).not.toContain(closed);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(await tokenBalance(network, chainOf(network).token.address, to)).toBe(0n);

      const settled = await service.post("/wallet/settle", body);
      expect(settled.status).toBe(200);
      expect(settled.body.payments[0]).toEqual({
        to,
        amount: units(network, 1n).toString(),
        token: chainOf(network).token.address,
      });
    } finally {
      broken.stop();
    }
  });
});
