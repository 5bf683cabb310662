// Two service instances on one database ask to unshield the same note at once: each has its own in-process lock
// per nullifier, so only the issued store's issueUnlessReserved (one write transaction) can keep the paymaster from
// sponsoring two spends of one note. The second spend's UserOp would pass verify and revert on-chain at our cost.
import { afterAll, expect, test } from "bun:test";
import {
  buildTree,
  fieldToHex,
  newNote,
  noteCommitment,
  notePrecommitment,
  randomFieldElement,
  unshieldInput,
} from "@relay402/client/wire/incognito/notes";
import { proveUnshield } from "@relay402/client/wire/incognito/proof";
import type { Address } from "viem";
import { openDatabase } from "../../src/db/open";
import { chainOf, randomAddress } from "../support/chain";
import { startTestService } from "../support/service";
import { deployFundedWallet, expectRefusal, settleBody, units } from "../wallets/support";

const network = "bsc";
const first = startTestService();
const second = startTestService({ databasePath: first.databasePath });
// The records as both instances share them, read beside the services.
const db = openDatabase(first.databasePath);
afterAll(async () => {
  db.$client.close();
  await second.stop();
  await first.stop();
});

const body = (wallet: Address, incognitoData: Record<string, unknown>) => ({
  walletAddress: wallet,
  incognitoData,
  paymentRequirements: { network },
});

async function leavesOf(): Promise<bigint[]> {
  const leaves: bigint[] = [];
  for (;;) {
    const page = await first.get(`/incognito/${network}/leaves?from=${leaves.length}`);
    expect(page.status).toBe(200);
    if (page.body.leaves.length === 0) return leaves;
    leaves.push(...page.body.leaves.map((leaf: string) => BigInt(leaf)));
  }
}

test("one note, four unshield verifies spread over two instances at once: one UserOp issued, three refused naming it", async () => {
  const c = chainOf(network);
  const token = c.token.address;
  const note = newNote(token, units(network, 10n));

  const shielder = await deployFundedWallet(network, units(network, 20n));
  const shield = await first.post(
    "/wallet/incognito/verify",
    body(shielder.wallet, {
      type: "shield",
      token,
      amount: note.amount.toString(),
      precommitment: fieldToHex(notePrecommitment(note)),
      commitment: fieldToHex(noteCommitment(note)),
    }),
  );
  expect(shield.status).toBe(200);
  const shielded = await first.post("/wallet/incognito/settle", await settleBody(shield.body, shielder.owner));
  expect(shielded.status).toBe(200);

  const withdrawAmount = units(network, 5n);
  const fee = units(network, 1n);
  const recipient = randomAddress();
  const input = unshieldInput({
    note,
    tree: buildTree(await leavesOf()),
    withdrawAmount,
    fee,
    recipient,
    feeRecipient: c.info.feeRecipient,
    change: { nullifier: randomFieldElement(), secret: randomFieldElement() },
  });
  const circuit = (await first.get("/incognito/circuit")).body;
  const bytes = async (path: string) =>
    new Uint8Array(await (await first.app.handle(new Request(`http://localhost${path}`))).arrayBuffer());
  const { proof } = await proveUnshield(input.input, await bytes(circuit.wasm), await bytes(circuit.zkey));
  const data = {
    type: "unshield",
    token,
    withdrawAmount: withdrawAmount.toString(),
    fee: fee.toString(),
    recipient,
    root: fieldToHex(input.root),
    nullifierHash: fieldToHex(input.nullifierHash),
    changeCommitment: fieldToHex(input.changeCommitment),
    proof,
  };

  const wallets = await Promise.all([0, 1].map(() => deployFundedWallet(network, 0n)));
  const answers = await Promise.all(
    [first, second, first, second].map((instance, i) =>
      instance.post("/wallet/incognito/verify", body((wallets[i % 2] as { wallet: Address }).wallet, data)),
    ),
  );
  const issued = answers.filter((answer) => answer.status === 200);
  expect(issued).toHaveLength(1);
  const userOpHash = issued[0]?.body.userOpHash;
  for (const answer of answers.filter((answer) => answer.status !== 200)) {
    expectRefusal(answer, 400, "validation_error", "incognitoData.nullifierHash");
  }
  // Each refusal names the very UserOp that was issued (the pre-check's and the alike).
  const named = answers.filter((answer) => answer.status === 400).map((answer) => answer.body.details?.userOpHash);
  expect(named).toEqual([userOpHash, userOpHash, userOpHash]);
  // Exactly one record of a spend of this note, on the one database both instances share.
  const nullifier = fieldToHex(input.nullifierHash);
  const keys = { nullifierHash: nullifier, leaf: fieldToHex(input.changeCommitment) };
  expect(await second.services.wallets.store.reservation(network, keys, 0)).toMatchObject({
    userOpHash,
    on: "nullifierHash",
  });
  const rows = db.$client
    .query<{ n: number }, [string]>(
      "SELECT count(*) AS n FROM issued_user_ops WHERE kind = 'incognito' AND json_extract(context, '$.nullifierHash') = ?",
    )
    .get(nullifier);
  expect(rows?.n).toBe(1);
}, 180_000);
