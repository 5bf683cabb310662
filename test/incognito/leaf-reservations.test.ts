// A leaf can be inserted into the pool once. Two sponsored UserOps inserting the same one (two shields of one
// note, or two unshields whose change notes are the same) each pass the bundler's simulation while the other is
// not mined yet, and the later one reverts on-chain at the paymaster's cost. Two service instances share one
// database here, as in production behind a load balancer: only the issued store's reservation can keep them apart.
// The chain judges: the pool's leaves and the paymaster's EntryPoint deposit.
import { afterAll, describe, expect, test } from "bun:test";
import { entryPointAbi, erc20Abi } from "@relay402/client/wire/abis";
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
import { proveUnshield } from "@relay402/client/wire/incognito/proof";
import { type Address, type Hex, parseEventLogs } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { chainOf, freshPayer, NETWORK_NAMES, randomAddress } from "../support/chain";
import { startTestService } from "../support/service";
import { deployFundedWallet, expectRefusal, paymasterDeposit, settleBody, units } from "../wallets/support";

const first = startTestService();
const second = startTestService({ databasePath: first.databasePath });
afterAll(async () => {
  await second.stop();
  await first.stop();
});
const instances = [first, second];

const body = (network: string, wallet: Address, incognitoData: Record<string, unknown>) => ({
  walletAddress: wallet,
  incognitoData,
  paymentRequirements: { network },
});

async function leavesOf(network: NetworkName): Promise<bigint[]> {
  const leaves: bigint[] = [];
  for (;;) {
    const page = await first.get(`/incognito/${network}/leaves?from=${leaves.length}`);
    expect(page.status).toBe(200);
    if (page.body.leaves.length === 0) return leaves;
    leaves.push(...page.body.leaves.map((leaf: string) => BigInt(leaf)));
  }
}

/** What the EntryPoint took from the paymaster's deposit for this UserOp, by its own event. */
async function actualGasCost(network: NetworkName, txHash: Hex, userOpHash: Hex): Promise<bigint> {
  const receipt = await chainOf(network).public.getTransactionReceipt({ hash: txHash });
  const [event] = parseEventLogs({ abi: entryPointAbi, eventName: "UserOperationEvent", logs: receipt.logs }).filter(
    (log) => log.args.userOpHash === userOpHash,
  );
  expect(event?.args.success).toBe(true);
  return event?.args.actualGasCost as bigint;
}

/** The transaction and the UserOp that inserted this leaf, by the pool's LeafInserted event and the EntryPoint's. */
async function insertedBy(network: NetworkName, commitment: bigint): Promise<{ txHash: Hex; userOpHash: Hex }> {
  const c = chainOf(network);
  const [inserted] = await c.public
    .getContractEvents({
      address: c.info.privacyPool,
      abi: privacyPoolAbi,
      eventName: "LeafInserted",
      fromBlock: 0n,
      strict: true,
    })
    .then((logs) => logs.filter((log) => log.args.commitment === commitment));
  expect(inserted).toBeDefined();
  const receipt = await c.public.getTransactionReceipt({ hash: inserted!.transactionHash });
  // The UserOp whose execution emitted the leaf: the UserOperationEvent following it in the bundle's logs.
  const [event] = parseEventLogs({ abi: entryPointAbi, eventName: "UserOperationEvent", logs: receipt.logs }).filter(
    (log) => log.logIndex > inserted!.logIndex,
  );
  expect(event).toBeDefined();
  return { txHash: inserted!.transactionHash, userOpHash: event!.args.userOpHash };
}

/**
 * Settles every UserOp that verify issued, at once, on alternating instances: the chain then shows whether any
 * second insert of the leaf was sponsored. Answers the settles.
 */
async function settleAll(issued: { body: any; owner: PrivateKeyAccount }[]) {
  return Promise.all(
    issued.map(async ({ body, owner }, i) =>
      (instances[i % 2] as typeof first).post("/wallet/incognito/settle", await settleBody(body, owner)),
    ),
  );
}

for (const network of NETWORK_NAMES) {
  describe(`${network}: one leaf, one sponsored insert`, () => {
    const c = chainOf(network);
    const token = c.token.address;

    test("the same precommitment from 4 wallets of 4 owners at once, 4 rounds: one leaf, 3 refused naming it, the deposit pays one UserOp", async () => {
      const amount = units(network, 1n);
      // Each wallet holds enough for every round's shield and its fee.
      const wallets = await Promise.all([0, 1, 2, 3].map(() => deployFundedWallet(network, units(network, 10n))));
      for (let round = 0; round < 4; round++) {
        const note = newNote(token, amount);
        const commitment = noteCommitment(note);
        const data = {
          type: "shield",
          token,
          amount: amount.toString(),
          precommitment: fieldToHex(notePrecommitment(note)),
        };
        const depositBefore = await paymasterDeposit(network);
        const answers = await Promise.all(
          wallets.map(({ wallet }, i) =>
            (instances[i % 2] as typeof first).post("/wallet/incognito/verify", body(network, wallet, data)),
          ),
        );
        const issued = wallets
          .map(({ owner }, i) => ({ owner, answer: answers[i] as (typeof answers)[number] }))
          .filter(({ answer }) => answer.status === 200)
          .map(({ owner, answer }) => ({ owner, body: answer.body }));
        const depositAfter = await settleAll(issued).then(() => paymasterDeposit(network));
        // The chain first: one leaf of the note, and the deposit paid for exactly the one UserOp that inserted it.
        const leaves = await leavesOf(network);
        expect(leaves.filter((leaf) => leaf === commitment)).toHaveLength(1);
        const { txHash, userOpHash: winner } = await insertedBy(network, commitment);
        const paid = await actualGasCost(network, txHash, winner);
        expect(depositAfter).toBe(depositBefore - paid);
        // Then the answers: one UserOp issued, the others refused naming it.
        expect(issued.map(({ body }) => body.userOpHash)).toEqual([winner]);
        for (const answer of answers.filter((answer) => answer.status !== 200)) {
          expectRefusal(answer, 400, "validation_error", "incognitoData.precommitment");
          expect(answer.body.details.userOpHash).toBe(winner);
        }
        // Once the note is in the pool, a later shield of it is refused at verify too; nothing is sponsored.
        const late = await second.post("/wallet/incognito/verify", body(network, wallets[round]!.wallet, data));
        expectRefusal(late, 400, "validation_error", "incognitoData.precommitment");
        expect(await paymasterDeposit(network)).toBe(depositAfter);
      }
    }, 240_000);

    test("two unshields of two notes with the same change commitment, at once: one inserts it, the other is refused", async () => {
      const notes = [newNote(token, units(network, 5n)), newNote(token, units(network, 5n))];
      const shielders = await Promise.all(notes.map(() => deployFundedWallet(network, units(network, 10n))));
      for (const [i, note] of notes.entries()) {
        const shield = await first.post(
          "/wallet/incognito/verify",
          body(network, shielders[i]!.wallet, {
            type: "shield",
            token,
            amount: note.amount.toString(),
            precommitment: fieldToHex(notePrecommitment(note)),
          }),
        );
        expect(shield.status).toBe(200);
        const shielded = await first.post(
          "/wallet/incognito/settle",
          await settleBody(shield.body, shielders[i]!.owner),
        );
        expect(shielded.status).toBe(200);
      }
      const circuit = (await first.get("/incognito/circuit")).body;
      const bytes = async (path: string) =>
        new Uint8Array(await (await first.app.handle(new Request(`http://localhost${path}`))).arrayBuffer());
      const [wasm, zkey] = [await bytes(circuit.wasm), await bytes(circuit.zkey)];
      const tree = buildTree(await leavesOf(network));
      // The same change secrets and the same change amount (both notes hold 5, both withdraw 3 with a fee of 1).
      const change = { nullifier: randomFieldElement(), secret: randomFieldElement() };
      const withdrawAmount = units(network, 3n);
      const fee = units(network, 1n);
      const datas = [];
      for (const note of notes) {
        const recipient = randomAddress();
        const input = unshieldInput({
          note,
          tree,
          withdrawAmount,
          fee,
          recipient,
          feeRecipient: c.info.feeRecipient,
          change,
        });
        const { proof } = await proveUnshield(input.input, wasm, zkey);
        datas.push({
          changeCommitment: input.changeCommitment,
          data: {
            type: "unshield",
            token,
            withdrawAmount: withdrawAmount.toString(),
            fee: fee.toString(),
            recipient,
            root: fieldToHex(input.root),
            nullifierHash: fieldToHex(input.nullifierHash),
            changeCommitment: fieldToHex(input.changeCommitment),
            proof,
          },
        });
      }
      expect(datas[0]?.changeCommitment).toBe(datas[1]?.changeCommitment as bigint);
      const changeCommitment = datas[0]?.changeCommitment as bigint;

      const spenders = await Promise.all(notes.map(() => deployFundedWallet(network, 0n)));
      const depositBefore = await paymasterDeposit(network);
      const answers = await Promise.all(
        datas.map(({ data }, i) =>
          (instances[i % 2] as typeof first).post("/wallet/incognito/verify", body(network, spenders[i]!.wallet, data)),
        ),
      );
      const issued = spenders
        .map(({ owner }, i) => ({ owner, answer: answers[i] as (typeof answers)[number] }))
        .filter(({ answer }) => answer.status === 200)
        .map(({ owner, answer }) => ({ owner, body: answer.body }));
      const depositAfter = await settleAll(issued).then(() => paymasterDeposit(network));
      expect((await leavesOf(network)).filter((leaf) => leaf === changeCommitment)).toHaveLength(1);
      const { txHash, userOpHash: winner } = await insertedBy(network, changeCommitment);
      expect(depositAfter).toBe(depositBefore - (await actualGasCost(network, txHash, winner)));
      expect(issued.map(({ body }) => body.userOpHash)).toEqual([winner]);
      const refused = answers.find((answer) => answer.status !== 200);
      expectRefusal(refused as (typeof answers)[number], 400, "validation_error", "incognitoData.changeCommitment");
    }, 240_000);

    test("a shield whose note someone inserted since verify is refused at settle, before the bundler, naming precommitment", async () => {
      const note = newNote(token, units(network, 1n));
      const { owner, wallet } = await deployFundedWallet(network, units(network, 10n));
      const verified = await first.post(
        "/wallet/incognito/verify",
        body(network, wallet, {
          type: "shield",
          token,
          amount: note.amount.toString(),
          precommitment: fieldToHex(notePrecommitment(note)),
        }),
      );
      expect(verified.status).toBe(200);
      // Whoever knows the precommitment (it was in the request) shields it from an account of their own.
      const payer = await freshPayer(network);
      const direct = c.walletFor(payer.key);
      const mined = async (hash: Hex) =>
        expect((await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe("success");
      await mined(
        await direct.writeContract({
          address: token,
          abi: erc20Abi,
          functionName: "approve",
          args: [c.info.privacyPool, note.amount],
        }),
      );
      await mined(
        await direct.writeContract({
          address: c.info.privacyPool,
          abi: privacyPoolAbi,
          functionName: "shield",
          args: [token, note.amount, notePrecommitment(note)],
        }),
      );
      const depositBefore = await paymasterDeposit(network);
      const settled = await second.post("/wallet/incognito/settle", await settleBody(verified.body, owner));
      expectRefusal(settled, 400, "validation_error", "incognitoData.precommitment");
      expect(await paymasterDeposit(network)).toBe(depositBefore);
      expect((await leavesOf(network)).filter((leaf) => leaf === noteCommitment(note))).toHaveLength(1);
    }, 120_000);
  });
}
