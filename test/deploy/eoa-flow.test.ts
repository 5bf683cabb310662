import { afterAll, describe, expect, test } from "bun:test";
import { factoryAbi } from "@relay402/client/wire/abis";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import { type Address, getAddress, type Hex, keccak256, stringToBytes } from "viem";
import { chainOf, NETWORK_NAMES, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import { adminHeaders, eoaDeployment, randomSalt } from "./support";

const service = startTestService();
afterAll(() => service.stop());

const hasCode = async (network: "bsc" | "base", address: Address) =>
  ((await chainOf(network).public.getCode({ address })) ?? "0x") !== "0x";

describe("EOA deployment flow", () => {
  for (const network of NETWORK_NAMES) {
    for (const [count, funded] of [
      [1, false],
      [1, true],
      [10, false],
      [10, true],
    ] as const) {
      test(`${network}: ${count} salt(s) ${funded ? "with" : "without"} funding`, async () => {
        const c = chainOf(network);
        const unit = 10n ** BigInt(c.token.decimals);
        const salts = Array.from({ length: count }, randomSalt);
        const funding = funded ? salts.map((_, i) => unit * BigInt(i + 1)) : undefined;
        const flow = await eoaDeployment(service, { network, salts, funding });
        const recipientBefore = await tokenBalance(network, c.token.address, c.info.feeRecipient);

        const verify = await service.post("/deploy/verify", flow.body, adminHeaders(service));
        expect(verify.status).toBe(200);
        expect(verify.body).toMatchObject({
          isValid: true,
          payer: flow.payer.address,
          invalidReason: null,
          deploymentFee: (unit * BigInt(count)).toString(),
        });
        expect(verify.body.totalFees).toBe(flow.total.toString());
        expect(verify.body.wallets).toEqual(
          flow.wallets.map((w, i) => ({ ...w, fundingAmount: (funding?.[i] ?? 0n).toString() })),
        );

        const settle = await service.post(
          "/deploy/settle",
          { ...flow.body, wallets: verify.body.wallets },
          adminHeaders(service),
        );
        expect(settle.status).toBe(200);
        // A deployment paid by an EOA is named by its fee payment's id (the relayer's nonce space).
        const fee = flow.body.paymentPayload[0]!.payload.authorization;
        const paymentId = paymentIdOf({
          chainId: c.info.chainId,
          contract: c.info.relayer,
          payer: fee.from as Address,
          nonce: fee.nonce as Hex,
        });
        expect(settle.body).toMatchObject({
          paymentId,
          paymentSuccess: true,
          deploymentSuccess: true,
          fundingSuccess: true,
          failedWallets: [],
          failedFundings: [],
        });
        expect(settle.body.deploymentFee).toBe(verify.body.deploymentFee);
        expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(
          recipientBefore + unit * BigInt(count),
        );
        for (const [i, wallet] of flow.wallets.entries()) {
          expect(await hasCode(network, wallet.address)).toBe(true);
          expect(
            await c.public.readContract({
              address: c.info.factory,
              abi: factoryAbi,
              functionName: "getAddress",
              args: [flow.owner, salts[i]!],
            }),
          ).toBe(wallet.address);
          expect(await tokenBalance(network, c.token.address, wallet.address)).toBe(funding?.[i] ?? 0n);
          expect(settle.body.wallets[i]).toMatchObject({
            address: wallet.address,
            fundingCompleted: funded,
            ...(funded ? {} : { fundingTxHash: null }),
          });
        }
        // One transaction for every factory call, one for every funding.
        expect(new Set(settle.body.wallets.map((w: { deploymentTxHash: string }) => w.deploymentTxHash)).size).toBe(1);

        const again = await service.post(
          "/deploy/settle",
          { ...flow.body, wallets: verify.body.wallets },
          adminHeaders(service),
        );
        expect(again.status).toBe(200);
        expect(again.body).toEqual(settle.body);

        const listed = await service.get(`/wallet/${flow.owner}?network=${network}`);
        expect(listed.status).toBe(200);
        expect(listed.body.master).toEqual([]);
        expect(listed.body.sub).toHaveLength(count);
        expect(listed.body.sub[0]).toMatchObject({
          ownerAddress: flow.owner,
          walletAddress: flow.wallets[0]!.address,
          salt: salts[0],
          payerAddress: flow.payer.address,
          paymentTxHash: settle.body.paymentTxHash,
          paymentCompleted: true,
          deploymentCompleted: true,
          fundingRequested: funded,
          fundingCompleted: funded,
          fundingAmount: (funding?.[0] ?? 0n).toString(),
          network,
        });
      });
    }
  }

  test("the master wallet: salt from the formula, computed before deployment, then deployed and listed", async () => {
    const network = "base";
    const c = chainOf(network);
    const owner = getAddress("0x8ba1f109551bd432803012645ac136ddd64dba72");
    const reversed = [...owner.slice(2)].reverse().join("");
    const salt = keccak256(stringToBytes(`relay402-${reversed}`));
    const before = await service.get(`/wallet/${owner.toLowerCase()}/master`);
    expect(before.status).toBe(200);
    const address = await c.public.readContract({
      address: c.info.factory,
      abi: factoryAbi,
      functionName: "getAddress",
      args: [owner, salt],
    });
    expect(before.body).toEqual({
      ownerAddress: owner,
      walletAddress: address,
      salt,
      deployments: { bsc: null, base: null },
    });
    expect((await service.get(`/wallet/${owner}`)).status).toBe(404);

    const flow = await eoaDeployment(service, { network, salts: [salt, randomSalt()], owner });
    const verify = await service.post("/deploy/verify", flow.body, adminHeaders(service));
    const settle = await service.post(
      "/deploy/settle",
      { ...flow.body, wallets: verify.body.wallets },
      adminHeaders(service),
    );
    expect(settle.status).toBe(200);
    const after = await service.get(`/api/v1/wallet/${owner}/master`);
    expect(after.body.deployments.bsc).toBeNull();
    expect(after.body.deployments.base).toMatchObject({
      walletAddress: address,
      salt,
      deploymentCompleted: true,
      network: "base",
    });
    const listed = await service.get(`/wallet/${owner}`);
    expect(listed.body.master).toHaveLength(1);
    expect(listed.body.sub).toHaveLength(1);
    expect((await service.get(`/wallet/${owner}?network=bsc`)).status).toBe(404);
    expect((await service.get("/wallet/0x1234/master")).body.code).toBe("validation_error");
    expect((await service.get("/wallet/nothex")).body.code).toBe("validation_error");
  });
});
