import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi } from "@relay402/client/wire/abis";
import {
  buildTree,
  fieldToHex,
  newNote,
  noteCommitment,
  notePrecommitment,
  randomFieldElement,
  unshieldInput,
} from "@relay402/client/wire/incognito/notes";
import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { proofCallArgs, proveUnshield } from "@relay402/client/wire/incognito/proof";
import { freshPayer, NETWORK_NAMES, randomAddress } from "../support/chain";
import { body, incognitoClientOf, incognitoNetwork, unshieldData, unshieldMinimum } from "../support/incognito-service";
import { startTestService } from "../support/service";
import { deployFundedWallet, expectRefusal, paymasterDeposit, settleBody, units, verifyBody } from "../wallets/support";

const service = startTestService();
afterAll(() => service.stop());
const { leavesOf, circuitFiles } = incognitoClientOf(service);

for (const network of NETWORK_NAMES) {
  describe(`${network}: incognito settles refused when the chain changed since verify`, () => {
    const { c, token, pool, feeRecipient, balance, mined } = incognitoNetwork(network);

    test("a shield whose wallet spent its balance after verify is refused at settle: nothing claimed or sponsored", async () => {
      const { owner, wallet } = await deployFundedWallet(network, units(network, 3n));
      const shieldNote = newNote(token, units(network, 2n));
      const verified = await service.post(
        "/wallet/incognito/verify",
        body(network, wallet, {
          type: "shield",
          token,
          amount: shieldNote.amount.toString(),
          precommitment: fieldToHex(notePrecommitment(shieldNote)),
        }),
      );
      expect(verified.status).toBe(200);
      // The owner moves 2 tokens out with a wallet payment in between.
      const paid = await service.post(
        "/wallet/verify",
        verifyBody(network, wallet, [{ to: randomAddress(), amount: units(network, 2n) }]),
      );
      expect(paid.status).toBe(200);
      expect((await service.post("/wallet/settle", await settleBody(paid.body, owner))).status).toBe(200);
      const depositBefore = await paymasterDeposit(network);
      const settled = await service.post("/wallet/incognito/settle", await settleBody(verified.body, owner));
      expectRefusal(settled, 400, "validation_error", "balance");
      expect(await paymasterDeposit(network)).toBe(depositBefore);
      expect((await leavesOf(network)).includes(noteCommitment(shieldNote))).toBe(false);
    }, 60_000);

    test("an unshield spent on-chain by someone else after verify is refused at settle: the paymaster pays nothing", async () => {
      // A note shielded by an EOA straight at the pool.
      const payer = await freshPayer(network);
      const depositor = c.walletFor(payer.key);
      const note2 = newNote(token, units(network, 5n));
      await mined(
        depositor.writeContract({ address: token, abi: erc20Abi, functionName: "approve", args: [pool, note2.amount] }),
      );
      await mined(
        depositor.writeContract({
          address: pool,
          abi: privacyPoolAbi,
          functionName: "shield",
          args: [token, note2.amount, notePrecommitment(note2)],
        }),
      );
      // The same note shielded again through the service: the pool would refuse the duplicate leaf at estimate.
      const funded = await deployFundedWallet(network, units(network, 10n));
      const depositBefore = await paymasterDeposit(network);
      expectRefusal(
        await service.post(
          "/wallet/incognito/verify",
          body(network, funded.wallet, {
            type: "shield",
            token,
            amount: note2.amount.toString(),
            precommitment: fieldToHex(notePrecommitment(note2)),
          }),
        ),
        400,
        "validation_error",
        "incognitoData.precommitment",
      );
      expect(await paymasterDeposit(network)).toBe(depositBefore);
      const withdraw = units(network, 2n);
      const fee = unshieldMinimum(withdraw, c.token.decimals);
      const recipient = randomAddress();
      const input = unshieldInput({
        note: note2,
        tree: buildTree(await leavesOf(network)),
        withdrawAmount: withdraw,
        fee,
        recipient,
        feeRecipient,
        change: { nullifier: randomFieldElement(), secret: randomFieldElement() },
      });
      const { wasm, zkey } = await circuitFiles();
      const { proof } = await proveUnshield(input.input, wasm, zkey);
      const { owner, wallet } = await deployFundedWallet(network, 0n);
      const verified = await service.post(
        "/wallet/incognito/verify",
        body(network, wallet, unshieldData(token, { ...input, withdrawAmount: withdraw, fee, recipient, proof })),
      );
      expect(verified.status).toBe(200);
      // The same proof sent to the pool directly (the prover itself, or anyone who saw the UserOp).
      await mined(
        depositor.writeContract({
          address: pool,
          abi: privacyPoolAbi,
          functionName: "unshield",
          args: [
            proofCallArgs(proof),
            input.root,
            input.nullifierHash,
            token,
            withdraw,
            recipient,
            feeRecipient,
            fee,
            input.changeCommitment,
          ],
        }),
      );
      const depositAtSettle = await paymasterDeposit(network);
      const settled = await service.post("/wallet/incognito/settle", await settleBody(verified.body, owner));
      expectRefusal(settled, 400, "validation_error", "incognitoData.nullifierHash");
      expect(await paymasterDeposit(network)).toBe(depositAtSettle);
      expect(await balance(recipient)).toBe(withdraw);
    }, 120_000);
  });
}
