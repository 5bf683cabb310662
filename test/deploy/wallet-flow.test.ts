import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { type Hex, maxUint256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { issuedUserOps } from "../../src/db/schema";
import { createIssuedUserOpStore } from "../../src/userops/issued-user-op-store-sqlite";
import { chainOf, NETWORK_NAMES, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import { deployFundedWallet } from "../support/wallet";
import { adminHeaders, randomOwner, randomSalt, walletDeployment } from "./support";

const service = startTestService();
afterAll(() => service.stop());

/** An existing smart wallet of the factory with tokens, and its owner's key. */
async function payingWallet(network: "bsc" | "base", tokens: bigint) {
  return { c: chainOf(network), ...(await deployFundedWallet(network, tokens)) };
}

describe("smart-wallet deployment flow", () => {
  for (const network of NETWORK_NAMES) {
    test(`${network}: one UserOp pays the fee and the fundings, then the wallets are deployed`, async () => {
      const c = chainOf(network);
      const unit = 10n ** BigInt(c.token.decimals);
      const payer = await payingWallet(network, 100n * unit);
      const owner = randomOwner();
      const salts = [randomSalt(), randomSalt(), randomSalt()];
      const fundingAmounts = [(2n * unit).toString(), "0", (3n * unit).toString()];
      const paymentRequirements = {
        network,
        deployment: { ownerAddress: owner, salts, token: c.token.address, payerAddress: payer.wallet, fundingAmounts },
      };
      const recipientBefore = await tokenBalance(network, c.token.address, c.info.feeRecipient);

      const verify = await service.post("/deploy/wallet/verify", { paymentRequirements }, adminHeaders(service));
      expect(verify.status).toBe(200);
      expect(verify.body).toMatchObject({
        isValid: true,
        payer: payer.wallet,
        deploymentFee: (3n * unit).toString(),
        fundingFees: (5n * unit).toString(),
        totalFees: (8n * unit).toString(),
      });
      expect(verify.body.userOp.signature).toBe("0x");
      const signature = await payer.owner.signMessage({ message: { raw: verify.body.userOpHash as Hex } });

      const stranger = await privateKeyToAccount(toHex(crypto.getRandomValues(new Uint8Array(32)))).signMessage({
        message: { raw: verify.body.userOpHash },
      });
      const forged = await service.post(
        "/deploy/wallet/settle",
        {
          userOp: { ...verify.body.userOp, signature: stranger },
          signature: stranger,
          paymentRequirements,
          wallets: verify.body.wallets,
        },
        adminHeaders(service),
      );
      expect(forged.status).toBe(400);
      expect(forged.body.code).toBe("validation_error");
      const changed = { ...verify.body.userOp, callGasLimit: "0x1", signature };
      const tampered = await service.post(
        "/deploy/wallet/settle",
        { userOp: changed, signature, paymentRequirements, wallets: verify.body.wallets },
        adminHeaders(service),
      );
      expect(tampered.body).toMatchObject({ code: "validation_error", details: { field: "userOp.callGasLimit" } });
      const otherWallets = await service.post(
        "/deploy/wallet/settle",
        {
          userOp: { ...verify.body.userOp, signature },
          signature,
          paymentRequirements,
          wallets: verify.body.wallets.slice(1),
        },
        adminHeaders(service),
      );
      expect(otherWallets.body.message).toContain("wallets do not match");

      const body = {
        userOp: { ...verify.body.userOp, signature },
        signature,
        paymentRequirements,
        wallets: verify.body.wallets,
      };
      const [settle, concurrent] = await Promise.all([
        service.post("/deploy/wallet/settle", body, adminHeaders(service)),
        service.post("/api/v1/deploy/wallet/settle", body, adminHeaders(service)),
      ]);
      expect(settle.status).toBe(200);
      expect(concurrent.body).toEqual(settle.body);
      expect(settle.body).toMatchObject({
        // A deployment paid by a UserOp is named by that UserOp's hash.
        paymentId: verify.body.userOpHash,
        paymentSuccess: true,
        deploymentSuccess: true,
        fundingSuccess: true,
        failedWallets: [],
        failedFundings: [],
      });
      expect(settle.body.wallets[1].fundingTxHash).toBeNull();
      expect(settle.body.wallets[0].fundingTxHash).toBe(settle.body.paymentTxHash);
      expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(recipientBefore + 3n * unit);
      expect(await tokenBalance(network, c.token.address, payer.wallet)).toBe(92n * unit);
      for (const [i, wallet] of verify.body.wallets.entries()) {
        expect(((await c.public.getCode({ address: wallet.address })) ?? "0x").length).toBeGreaterThan(2);
        expect(await tokenBalance(network, c.token.address, wallet.address)).toBe(BigInt(fundingAmounts[i]!));
      }
      const again = await service.post("/deploy/wallet/settle", body, adminHeaders(service));
      expect(again.body).toEqual(settle.body);
      const listed = await service.get(`/wallet/${owner}`);
      expect(
        listed.body.sub.map((info: { payerAddress: string; fundingRequested: boolean }) => [
          info.payerAddress,
          info.fundingRequested,
        ]),
      ).toEqual([
        [payer.wallet, true],
        [payer.wallet, false],
        [payer.wallet, true],
      ]);
    }, 60_000);
  }

  for (const network of NETWORK_NAMES) {
    test(`${network}: a funding above uint256, or a fee plus fundings above it, is a 400 naming the field; nothing moves`, async () => {
      const c = chainOf(network);
      const payer = await payingWallet(network, 10n ** BigInt(c.token.decimals));
      const verifyWith = (fundingAmounts: string[]) =>
        service.post(
          "/deploy/wallet/verify",
          {
            paymentRequirements: {
              network,
              deployment: {
                ownerAddress: randomOwner(),
                salts: fundingAmounts.map(randomSalt),
                token: c.token.address,
                payerAddress: payer.wallet,
                fundingAmounts,
              },
            },
          },
          adminHeaders(service),
        );
      const before = await tokenBalance(network, c.token.address, payer.wallet);
      const field = "paymentRequirements.deployment.fundingAmounts";
      const cases: [string[], string][] = [
        [["1", (2n ** 256n).toString()], `${field}.1`],
        [["9".repeat(78)], `${field}.0`],
        // Each fits; the deployment fee plus the fundings does not.
        [[maxUint256.toString()], field],
        [[(2n ** 255n).toString(), (2n ** 255n).toString()], field],
      ];
      for (const [amounts, named] of cases) {
        const answer = await verifyWith(amounts);
        expect(answer.status, amounts.join(",")).toBe(400);
        expect(answer.body).toMatchObject({ code: "validation_error", details: { field: named } });
        expect(answer.body.message).toContain("uint256");
      }
      expect(await tokenBalance(network, c.token.address, payer.wallet)).toBe(before);
    }, 60_000);
  }

  test("a paying wallet that is not deployed or too poor is refused", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const payer = await payingWallet(network, 1n);
    const base = { ownerAddress: randomOwner(), salts: [randomSalt()], token: c.token.address };
    const poor = await service.post(
      "/deploy/wallet/verify",
      { paymentRequirements: { network, deployment: { ...base, payerAddress: payer.wallet } } },
      adminHeaders(service),
    );
    expect(poor.status).toBe(400);
    expect(poor.body.message).toContain("insufficient token balance");
    const missing = await service.post(
      "/deploy/wallet/verify",
      { paymentRequirements: { network, deployment: { ...base, payerAddress: randomOwner() } } },
      adminHeaders(service),
    );
    expect(missing.body.message).toContain("no wallet deployed");
    const mismatch = await service.post(
      "/deploy/wallet/verify",
      {
        paymentRequirements: {
          network,
          deployment: { ...base, payerAddress: payer.wallet, fundingAmounts: ["1", "2"] },
        },
      },
      adminHeaders(service),
    );
    expect(mismatch.body).toMatchObject({
      code: "validation_error",
      details: { field: "paymentRequirements.deployment.fundingAmounts" },
    });
  }, 60_000);

  test("a deployment UserOp cannot be settled as a wallet payment", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const unit = 10n ** BigInt(c.token.decimals);
    const payer = await payingWallet(network, 100n * unit);
    const paymentRequirements = {
      network,
      deployment: {
        ownerAddress: randomOwner(),
        salts: [randomSalt()],
        token: c.token.address,
        payerAddress: payer.wallet,
      },
    };
    const verify = await service.post("/deploy/wallet/verify", { paymentRequirements }, adminHeaders(service));
    expect(verify.status).toBe(200);
    const signature = await payer.owner.signMessage({ message: { raw: verify.body.userOpHash as Hex } });
    const before = await tokenBalance(network, c.token.address, payer.wallet);
    const response = await service.post("/wallet/settle", { userOp: { ...verify.body.userOp, signature }, signature });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe("validation_error");
    expect(await tokenBalance(network, c.token.address, payer.wallet)).toBe(before);
    // Malformed quantities at the deploy settle are validation errors too, not a 500.
    const malformed = await service.post(
      "/deploy/wallet/settle",
      { userOp: { ...verify.body.userOp, nonce: "zz" }, signature, paymentRequirements, wallets: verify.body.wallets },
      adminHeaders(service),
    );
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ code: "validation_error", details: { field: "userOp.nonce" } });
    // So is a sender whose mixed case is not its EIP-55 checksum (hashing the UserOp refused it: a 500).
    const flipped = `0x${[...verify.body.userOp.sender.slice(2)]
      .map((c: string) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
      .join("")}`;
    const unchecksummed = await service.post(
      "/deploy/wallet/settle",
      {
        userOp: { ...verify.body.userOp, sender: flipped },
        signature,
        paymentRequirements,
        wallets: verify.body.wallets,
      },
      adminHeaders(service),
    );
    expect(unchecksummed.status).toBe(400);
    expect(unchecksummed.body).toMatchObject({ code: "validation_error", details: { field: "userOp.sender" } });
    for (const path of ["/wallet/settle", "/wallet/swap/settle", "/wallet/incognito/settle"]) {
      const answer = await service.post(path, { userOp: { ...verify.body.userOp, sender: flipped }, signature });
      expect([answer.status, answer.body.details?.field], path).toEqual([400, "userOp.sender"]);
    }
  });

  test("a fee UserOp issued before its context carried the amounts still settles; its deployment is still compared", async () => {
    const network = "base";
    const deployment = await walletDeployment(service, network, [0n]);
    const stored = JSON.parse(createIssuedUserOpStore(service.db).find(deployment.hash)?.context ?? "null");
    expect(stored).toMatchObject({ totalAmount: deployment.total.toString(), feeAmount: deployment.fee.toString() });
    const { totalAmount, feeAmount, transfers, ...promised } = stored;
    service.db
      .update(issuedUserOps)
      .set({ context: JSON.stringify(promised) })
      .where(eq(issuedUserOps.userOpHash, deployment.hash))
      .run();
    const changed = structuredClone(deployment.body);
    changed.paymentRequirements.deployment.fundingAmounts = ["1"];
    const refused = await service.post("/deploy/wallet/settle", changed, adminHeaders(service));
    expect(refused.status).toBe(400);
    expect(refused.body.details.field).toBe("paymentRequirements.deployment");
    const settled = await service.post("/deploy/wallet/settle", deployment.body, adminHeaders(service));
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, paymentId: deployment.hash });
  }, 60_000);
});
