import { afterAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import { chainOf, NETWORK_NAMES, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import { deployFundedWallet, paymasterDeposit, randomAddress, settleBody, units, verifyBody } from "./support";

const service = startTestService();
afterAll(() => service.stop());

const USER_OP_FIELDS = [
  "sender",
  "nonce",
  "callData",
  "callGasLimit",
  "verificationGasLimit",
  "preVerificationGas",
  "maxFeePerGas",
  "maxPriorityFeePerGas",
  "paymaster",
  "paymasterVerificationGasLimit",
  "paymasterPostOpGasLimit",
  "paymasterData",
  "signature",
];

for (const network of NETWORK_NAMES) {
  describe(`${network}: smart-wallet payment`, () => {
    const c = chainOf(network);
    const token = c.token.address;
    const feeRecipient = c.info.feeRecipient;
    const balances = (holders: Address[]) => Promise.all(holders.map((holder) => tokenBalance(network, token, holder)));

    for (const count of [1, 2, 20]) {
      test(`pays ${count} recipient(s): every balance moves by exactly its amount, the paymaster pays the gas`, async () => {
        const { owner, wallet } = await deployFundedWallet(network, units(network, 1000n));
        const transfers = Array.from({ length: count }, (_, i) => ({
          to: randomAddress(),
          amount: units(network, BigInt(i + 1)) + BigInt(i),
        }));
        const sum = transfers.reduce((total, transfer) => total + transfer.amount, 0n);

        const verified = await service.post("/wallet/verify", verifyBody(network, wallet, transfers));
        expect(verified.status).toBe(200);
        const v = verified.body;
        expect(v).toMatchObject({ isValid: true, payer: owner.address });
        expect(Object.keys(v.userOp).sort()).toEqual([...USER_OP_FIELDS].sort());
        expect(v.userOp.signature).toBe("0x");
        expect(v.userOp.sender).toBe(wallet);
        expect(v.userOp.paymaster).toBe(c.info.paymaster);
        expect(v.userOp.nonce).toMatch(/^0x[0-9a-f]+$/);
        const fee = BigInt(v.feeAmount);
        // devnet token config: 50 bps, minimum 0.01 token
        const expectedFee = (sum * 50n + 9_999n) / 10_000n;
        const minFee = 10n ** BigInt(c.token.decimals) / 100n;
        expect(fee).toBe(expectedFee > minFee ? expectedFee : minFee);
        expect(BigInt(v.totalAmount)).toBe(sum + fee);

        const holders = [wallet, feeRecipient, ...transfers.map((transfer) => transfer.to)];
        const before = await balances(holders);
        const depositBefore = await paymasterDeposit(network);

        const settled = await service.post("/wallet/settle", await settleBody(v, owner));
        expect(settled.status).toBe(200);
        // The payment's id of a UserOp flow is its userOpHash, on the first answer and on replays.
        expect(settled.body).toMatchObject({ success: true, userOpHash: v.userOpHash, paymentId: v.userOpHash });
        expect(settled.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
        expect(settled.body.payments).toEqual([
          ...transfers.map((transfer) => ({ to: transfer.to, amount: transfer.amount.toString(), token })),
          { to: feeRecipient, amount: fee.toString(), token },
        ]);

        const after = await balances(holders);
        expect(after[0]! - before[0]!).toBe(-(sum + fee));
        expect(after[1]! - before[1]!).toBe(fee);
        expect(transfers.map((_, i) => after[i + 2]! - before[i + 2]!)).toEqual(
          transfers.map((transfer) => transfer.amount),
        );
        expect(await c.public.getBalance({ address: wallet })).toBe(0n);
        expect(await paymasterDeposit(network)).toBeLessThan(depositBefore);
      });
    }

    test("a repeated settle returns the first result and sends nothing again; /api/v1 serves the same routes", async () => {
      const { owner, wallet } = await deployFundedWallet(network, units(network, 10n));
      const to = randomAddress();
      const verified = await service.post(
        "/api/v1/wallet/verify",
        verifyBody(network, wallet, [{ to, amount: units(network, 1n) }]),
      );
      expect(verified.status).toBe(200);
      const body = await settleBody(verified.body, owner);
      // Two at once, then one more after the first finished.
      const [first, concurrent] = await Promise.all([
        service.post("/wallet/settle", body),
        service.post("/api/v1/wallet/settle", body),
      ]);
      const again = await service.post("/wallet/settle", body);
      expect(first.status).toBe(200);
      expect(concurrent.body).toEqual(first.body);
      expect(again.body).toEqual(first.body);
      expect(await tokenBalance(network, token, to)).toBe(units(network, 1n));
    });

    test("a signature over the raw userOpHash is accepted too", async () => {
      const { owner, wallet } = await deployFundedWallet(network, units(network, 10n));
      const to = randomAddress();
      const verified = await service.post(
        "/wallet/verify",
        verifyBody(network, wallet, [{ to, amount: units(network, 2n) }]),
      );
      const settled = await service.post("/wallet/settle", await settleBody(verified.body, owner, true));
      expect(settled.status).toBe(200);
      expect(await tokenBalance(network, token, to)).toBe(units(network, 2n));
    });
  });
}
