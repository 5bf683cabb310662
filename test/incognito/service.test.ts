import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
import { proveUnshield, type SolidityProof } from "@relay402/client/wire/incognito/proof";
import { SNARK_BASE_FIELD } from "@relay402/client/wire/incognito/protocol";
import type { Address, Hex } from "viem";
import { chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import { deployFundedWallet, expectRefusal, paymasterDeposit, settleBody, units, verifyBody } from "../wallets/support";

const service = startTestService();
afterAll(() => service.stop());

/** What a client does: the tree from the service's leaves, page by page. */
async function leavesOf(network: string): Promise<bigint[]> {
  const leaves: bigint[] = [];
  for (;;) {
    const page = await service.get(`/incognito/${network}/leaves?from=${leaves.length}`);
    expect(page.status).toBe(200);
    if (page.body.leaves.length === 0) return leaves;
    leaves.push(...page.body.leaves.map((leaf: string) => BigInt(leaf)));
  }
}

/** The circuit's wasm and zkey as the service serves them (what a client proves with). */
let artifacts: Promise<{ wasm: Uint8Array; zkey: Uint8Array }> | undefined;
function circuitFiles() {
  artifacts ??= (async () => {
    const circuit = (await service.get("/incognito/circuit")).body;
    const bytes = async (path: string) =>
      new Uint8Array(await (await service.app.handle(new Request(`http://localhost${path}`))).arrayBuffer());
    return { wasm: await bytes(circuit.wasm), zkey: await bytes(circuit.zkey) };
  })();
  return artifacts;
}

const unshieldMinimum = (withdraw: bigint, decimals: number) => {
  // The devnet's unshield fee: 30 bps, floor 0.05 token (scripts/devnet/service-config.ts).
  const proportional = (withdraw * 30n + 9_999n) / 10_000n;
  const floor = 10n ** BigInt(decimals) / 20n;
  return proportional > floor ? proportional : floor;
};

async function signAndSettle(verified: { userOp: Record<string, string>; userOpHash: Hex }, owner: any) {
  const settled = await service.post("/wallet/incognito/settle", await settleBody(verified, owner));
  expect(settled.status).toBe(200);
  expect(settled.body.success).toBe(true);
  return settled.body;
}

const body = (network: string, wallet: Address, incognitoData: Record<string, unknown>) => ({
  walletAddress: wallet,
  incognitoData,
  paymentRequirements: { network },
});

const unshieldData = (
  token: Address,
  p: {
    withdrawAmount: bigint;
    fee: bigint;
    recipient: Address;
    root: bigint;
    nullifierHash: bigint;
    changeCommitment: bigint;
    proof: SolidityProof;
  },
) => ({
  type: "unshield",
  token,
  withdrawAmount: p.withdrawAmount.toString(),
  fee: p.fee.toString(),
  recipient: p.recipient,
  root: fieldToHex(p.root),
  nullifierHash: fieldToHex(p.nullifierHash),
  changeCommitment: fieldToHex(p.changeCommitment),
  proof: p.proof,
});

describe("incognito public data", () => {
  test("GET /incognito/circuit names the setup; the artifacts are served immutable with their sha256 as ETag", async () => {
    const circuit = await service.get("/incognito/circuit");
    expect(circuit.status).toBe(200);
    expect(circuit.body.treeDepth).toBe(20);
    expect(circuit.body.publicSignals).toEqual([
      "root",
      "nullifierHash",
      "token",
      "withdrawAmount",
      "recipient",
      "feeRecipient",
      "fee",
      "changeCommitment",
    ]);
    for (const name of ["wasm", "zkey", "verificationKey"] as const) {
      const path: string = circuit.body[name];
      expect(path.startsWith(`/incognito/circuit/${circuit.body.id}/`)).toBe(true);
      const response = await service.app.handle(new Request(`http://localhost${path}`));
      expect(response.status).toBe(200);
      const data = new Uint8Array(await response.arrayBuffer());
      const sha256 = createHash("sha256").update(data).digest("hex");
      expect(sha256).toBe(circuit.body.sha256[name]);
      expect(response.headers.get("etag")).toBe(`"${sha256}"`);
      expect(response.headers.get("cache-control")).toContain("immutable");
      const again = await service.app.handle(
        new Request(`http://localhost${path}`, { headers: { "if-none-match": `"${sha256}"` } }),
      );
      expect(again.status).toBe(304);
    }
    const unknown = await service.get(`/incognito/circuit/unshield-0000000000000000/unshield.zkey`);
    expectRefusal(unknown, 404, "not_found");
    const traversal = await service.get(`/incognito/circuit/${circuit.body.id}/..%2F..%2Fpackage.json`);
    expect(traversal.status).toBe(404);
  });

  test("/config lists the pool, the circuit id and the unshield fees; /health lists the pool", async () => {
    const config = (await service.get("/config")).body;
    const circuit = (await service.get("/incognito/circuit")).body;
    const health = (await service.get("/health")).body;
    for (const network of NETWORK_NAMES) {
      const c = chainOf(network);
      expect(config.networks[network].incognito).toEqual({ pool: c.info.privacyPool, circuitId: circuit.id });
      expect(config.networks[network].tokens[0].fees).toMatchObject({
        unshieldFeeBps: 30,
        unshieldMinFee: (10n ** BigInt(c.token.decimals) / 20n).toString(),
      });
      expect(health.networks[network].privacyPool).toBe(c.info.privacyPool);
    }
  });

  test("a network without contracts.privacyPool has incognito off: verify and leaves name the network", async () => {
    const off = startTestService({}, (config) => {
      delete config.networks.bsc!.contracts.privacyPool;
    });
    try {
      const { wallet } = await deployFundedWallet("bsc", 0n);
      expectRefusal(
        await off.post(
          "/wallet/incognito/verify",
          body("bsc", wallet, {
            type: "shield",
            token: chainOf("bsc").token.address,
            amount: "1",
            precommitment: fieldToHex(1n),
          }),
        ),
        400,
        "validation_error",
        "paymentRequirements.network",
      );
      expectRefusal(await off.get("/incognito/bsc/leaves"), 400, "validation_error", "network");
      expect((await off.get("/config")).body.networks.bsc.incognito).toBeNull();
    } finally {
      off.stop();
    }
  });

  test("leaves: an unknown network is refused, a page past the end is empty", async () => {
    expectRefusal(await service.get("/incognito/solana/leaves"), 400, "validation_error", "network");
    const first = await service.get("/incognito/bsc/leaves");
    const total = first.body.total;
    const end = await service.get(`/incognito/bsc/leaves?from=${total}`);
    expect(end.status).toBe(200);
    expect(end.body).toMatchObject({ total, from: total, leaves: [] });
    expectRefusal(await service.get("/incognito/bsc/leaves?from=-1"), 400, "validation_error");
  });
});

for (const network of NETWORK_NAMES) {
  describe(`${network}: shield, unshield with change, unshield the change`, () => {
    const c = chainOf(network);
    const token = c.token.address;
    const pool = c.info.privacyPool;
    const feeRecipient = c.info.feeRecipient;
    const one = units(network, 1n);
    const note = newNote(token, units(network, 100n));
    const recipient1 = randomAddress();
    const recipient2 = randomAddress();
    const withdraw1 = units(network, 30n);
    const fee1 = unshieldMinimum(withdraw1, c.token.decimals);
    const state: {
      firstUnshield?: ReturnType<typeof unshieldData>;
      change?: ReturnType<typeof unshieldInput>["changeNote"];
    } = {};
    const balance = (holder: Address) => tokenBalance(network, token, holder);
    const mined = async (sent: Promise<Hex>) => {
      const receipt = await c.public.waitForTransactionReceipt({ hash: await sent, pollingInterval: 50 });
      expect(receipt.status).toBe("success");
    };

    test("shield 100 from wallet A: the pool gets 100, the fee recipient the wallet payment fee, the leaf is the note", async () => {
      const { owner, wallet } = await deployFundedWallet(network, units(network, 200n));
      const verified = await service.post(
        "/wallet/incognito/verify",
        body(network, wallet, {
          type: "shield",
          token,
          amount: note.amount.toString(),
          precommitment: fieldToHex(notePrecommitment(note)),
          commitment: fieldToHex(noteCommitment(note)),
        }),
      );
      expect(verified.status).toBe(200);
      // The wallet payment rule: max(0.01, ceil(100 × 50 / 10000)) = 0.5.
      const fee = (note.amount * 50n) / 10_000n;
      expect(verified.body).toMatchObject({
        isValid: true,
        payer: owner.address,
        feeAmount: fee.toString(),
        totalAmount: (note.amount + fee).toString(),
      });
      const before = await Promise.all([wallet, pool, feeRecipient].map(balance));
      const settled = await signAndSettle(verified.body, owner);
      const leaves = await leavesOf(network);
      expect(settled.incognito).toEqual({
        type: "shield",
        token,
        amount: note.amount.toString(),
        commitment: fieldToHex(noteCommitment(note)),
        leafIndex: leaves.indexOf(noteCommitment(note)),
      });
      expect(settled.incognito.leafIndex).toBeGreaterThanOrEqual(0);
      const after = await Promise.all([wallet, pool, feeRecipient].map(balance));
      expect(after).toEqual([before[0]! - note.amount - fee, before[1]! + note.amount, before[2]! + fee]);
      // The service's tree is the pool's.
      const page = (await service.get(`/incognito/${network}/leaves`)).body;
      const [root, size] = await Promise.all(
        (["currentRoot", "size"] as const).map((functionName) =>
          c.public.readContract({ address: pool, abi: privacyPoolAbi, functionName }),
        ),
      );
      expect(BigInt(page.root)).toBe(root as bigint);
      expect(BigInt(page.total)).toBe(size as bigint);
      expect(buildTree(leaves).root).toBe(root as bigint);
    }, 60_000);

    test("unshield 30 from wallet B (no balance) to a fresh address: exact amounts, change note of 70 − fee inserted", async () => {
      const { owner, wallet } = await deployFundedWallet(network, 0n);
      const input = unshieldInput({
        note,
        tree: buildTree(await leavesOf(network)),
        withdrawAmount: withdraw1,
        fee: fee1,
        recipient: recipient1,
        feeRecipient,
        change: { nullifier: randomFieldElement(), secret: randomFieldElement() },
      });
      const { wasm, zkey } = await circuitFiles();
      const { proof } = await proveUnshield(input.input, wasm, zkey);
      const data = unshieldData(token, {
        ...input,
        withdrawAmount: withdraw1,
        fee: fee1,
        recipient: recipient1,
        proof,
      });
      state.firstUnshield = data;
      state.change = input.changeNote;
      expect(input.changeNote.amount).toBe(units(network, 70n) - fee1);

      // Two wallets ask for the same note at once: exactly one gets a UserOp (the paymaster sponsors one spend).
      const other = await deployFundedWallet(network, 0n);
      const answers = await Promise.all(
        [wallet, other.wallet].map((sender) => service.post("/wallet/incognito/verify", body(network, sender, data))),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const winner = answers[0]!.status === 200 ? 0 : 1;
      const verified = answers[winner]!;
      const signer = winner === 0 ? owner : other.owner;
      expectRefusal(answers[1 - winner]!, 400, "validation_error", "incognitoData.nullifierHash");
      expect(verified.body).toMatchObject({
        isValid: true,
        payer: signer.address,
        feeAmount: fee1.toString(),
        totalAmount: (withdraw1 + fee1).toString(),
      });
      // And later, while that UserOp may still be settled.
      expectRefusal(
        await service.post("/wallet/incognito/verify", body(network, wallet, data)),
        400,
        "validation_error",
        "incognitoData.nullifierHash",
      );

      const before = await Promise.all([pool, feeRecipient, wallet, other.wallet].map(balance));
      const settled = await signAndSettle(verified.body, signer);
      const leaves = await leavesOf(network);
      expect(settled.incognito).toEqual({
        type: "unshield",
        token,
        amount: withdraw1.toString(),
        commitment: fieldToHex(input.changeCommitment),
        leafIndex: leaves.indexOf(input.changeCommitment),
        nullifierHash: fieldToHex(input.nullifierHash),
        recipient: recipient1,
      });
      expect(await balance(recipient1)).toBe(withdraw1);
      const after = await Promise.all([pool, feeRecipient, wallet, other.wallet].map(balance));
      expect(after).toEqual([before[0]! - withdraw1 - fee1, before[1]! + fee1, 0n, 0n]);
      // Settling again replays the answer.
      const replay = await service.post("/wallet/incognito/settle", await settleBody(verified.body, signer));
      expect(replay.body).toEqual(settled);
      expect(await balance(recipient1)).toBe(withdraw1);
    }, 120_000);

    test("refusals at verify name the field and sponsor nothing", async () => {
      const first = state.firstUnshield!;
      const { wallet } = await deployFundedWallet(network, units(network, 10n));
      const depositBefore = await paymasterDeposit(network);
      const refuse = async (data: Record<string, unknown>, field: string) =>
        expectRefusal(
          await service.post("/wallet/incognito/verify", body(network, wallet, data)),
          400,
          "validation_error",
          field,
        );
      // The spent note, again.
      await refuse(first, "incognitoData.nullifierHash");
      // The same proof for another recipient, or another (still sufficient) fee: the proof binds both.
      const fresh = { ...first, nullifierHash: fieldToHex(12345n) };
      await refuse({ ...fresh, recipient: randomAddress() }, "incognitoData.proof");
      await refuse({ ...fresh, fee: (BigInt(first.fee) + 1n).toString() }, "incognitoData.proof");
      // A root the pool never had.
      await refuse({ ...fresh, root: fieldToHex(777n) }, "incognitoData.root");
      // A fee below max(unshieldMinFee, ceil(withdrawAmount × bps / 10000)).
      await refuse({ ...fresh, fee: (BigInt(first.fee) - 1n).toString() }, "incognitoData.fee");
      // A shield of a token that is not whitelisted, of a precommitment outside the field, of a wrong commitment.
      const shield = {
        type: "shield",
        token,
        amount: one.toString(),
        precommitment: fieldToHex(99n),
      };
      await refuse({ ...shield, token: randomAddress() }, "incognitoData.token");
      await refuse({ ...shield, precommitment: `0x${"f".repeat(64)}` }, "incognitoData.precommitment");
      await refuse({ ...shield, commitment: fieldToHex(5n) }, "incognitoData.commitment");
      await refuse({ ...shield, amount: undefined }, "incognitoData.amount");
      await refuse({ ...shield, amount: units(network, 11n).toString() }, "incognitoData.amount");
      await refuse({ ...fresh, proof: undefined }, "incognitoData.proof");
      // A coordinate shifted by q: snarkjs would reduce it and accept, the pool's verifier refuses it.
      const shifted = (path: (p: SolidityProof, v: string) => void) => {
        const proof = structuredClone(first.proof) as SolidityProof;
        path(proof, (BigInt(proof.a[0]) + SNARK_BASE_FIELD).toString());
        return { ...first, proof };
      };
      await refuse(
        shifted((p, v) => {
          p.a[0] = v;
        }),
        "incognitoData.proof.a[0]",
      );
      await refuse(
        shifted((p, v) => {
          p.b[1][0] = v;
        }),
        "incognitoData.proof.b[1][0]",
      );
      expect(await paymasterDeposit(network)).toBe(depositBefore);
    }, 60_000);

    test("unshield all of the change (change 0) from wallet C to another address", async () => {
      const change = state.change!;
      const { owner, wallet } = await deployFundedWallet(network, 0n);
      // The largest withdrawal whose minimum fee still fits; the rest is the fee (at least the minimum).
      let withdraw2 = change.amount - unshieldMinimum(change.amount, c.token.decimals);
      while (withdraw2 + unshieldMinimum(withdraw2, c.token.decimals) > change.amount) withdraw2 -= 1n;
      const fee2 = change.amount - withdraw2;
      expect(fee2 >= unshieldMinimum(withdraw2, c.token.decimals)).toBe(true);
      const input = unshieldInput({
        note: change,
        tree: buildTree(await leavesOf(network)),
        withdrawAmount: withdraw2,
        fee: fee2,
        recipient: recipient2,
        feeRecipient,
        change: { nullifier: randomFieldElement(), secret: randomFieldElement() },
      });
      expect(input.changeNote.amount).toBe(0n);
      const { wasm, zkey } = await circuitFiles();
      const { proof } = await proveUnshield(input.input, wasm, zkey);
      const verified = await service.post(
        "/wallet/incognito/verify",
        body(
          network,
          wallet,
          unshieldData(token, { ...input, withdrawAmount: withdraw2, fee: fee2, recipient: recipient2, proof }),
        ),
      );
      expect(verified.status).toBe(200);
      expect(verified.body.totalAmount).toBe(change.amount.toString());
      const before = await Promise.all([pool, feeRecipient].map(balance));
      const settled = await signAndSettle(verified.body, owner);
      expect(settled.incognito).toMatchObject({
        type: "unshield",
        amount: withdraw2.toString(),
        recipient: recipient2,
      });
      expect(await balance(recipient2)).toBe(withdraw2);
      expect(await Promise.all([pool, feeRecipient].map(balance))).toEqual([
        before[0]! - change.amount,
        before[1]! + fee2,
      ]);
      // Over the three operations: 100 in, 30 + (70 − f1 − f2) out to recipients, f1 + f2 to the fee recipient.
      expect(withdraw1 + fee1 + withdraw2 + fee2).toBe(note.amount);
      expect(await balance(wallet)).toBe(0n);
    }, 120_000);

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
            {
              a: [BigInt(proof.a[0]), BigInt(proof.a[1])],
              b: [
                [BigInt(proof.b[0][0]), BigInt(proof.b[0][1])],
                [BigInt(proof.b[1][0]), BigInt(proof.b[1][1])],
              ],
              c: [BigInt(proof.c[0]), BigInt(proof.c[1])],
            },
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

    test("a restarted service resumes the tree from its cursor, not from its start block", async () => {
      // A copy of the database as it is now, then one more leaf on-chain.
      service.db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
      const copy = join(mkdtempSync(join(tmpdir(), "relay402-incognito-")), "relay402.sqlite");
      copyFileSync(service.databasePath, copy);
      const before = (await service.get(`/incognito/${network}/leaves`)).body.total;
      const payer = await freshPayer(network);
      const depositor = c.walletFor(payer.key);
      const note3 = newNote(token, one);
      await mined(
        depositor.writeContract({ address: token, abi: erc20Abi, functionName: "approve", args: [pool, one] }),
      );
      await mined(
        depositor.writeContract({
          address: pool,
          abi: privacyPoolAbi,
          functionName: "shield",
          args: [token, one, notePrecommitment(note3)],
        }),
      );
      // A start block far ahead: only the stored cursor can find the new leaf.
      const again = startTestService({ databasePath: copy }, (config) => {
        config.networks[network]!.privacyPoolStartBlock = 1_000_000_000;
      });
      try {
        const page = (await again.get(`/incognito/${network}/leaves?from=${before}`)).body;
        expect(page.total).toBe(before + 1);
        expect(page.leaves).toEqual([fieldToHex(noteCommitment(note3))]);
        expect(page).toEqual((await service.get(`/incognito/${network}/leaves?from=${before}`)).body);
      } finally {
        again.stop();
      }
    }, 60_000);

    test("a reorg that replaces an indexed leaf: the tree no longer matches the pool, the indexer re-reads the last blocks", async () => {
      const payer = await freshPayer(network);
      const depositor = c.walletFor(payer.key);
      const shieldDirectly = async (note: ReturnType<typeof newNote>) => {
        await mined(
          depositor.writeContract({
            address: token,
            abi: erc20Abi,
            functionName: "approve",
            args: [pool, note.amount],
          }),
        );
        await mined(
          depositor.writeContract({
            address: pool,
            abi: privacyPoolAbi,
            functionName: "shield",
            args: [token, note.amount, notePrecommitment(note)],
          }),
        );
      };
      const total = (await service.get(`/incognito/${network}/leaves`)).body.total;
      // Only this test's own transactions are in the blocks that anvil's revert drops.
      const snapshot = await c.test.snapshot();
      const dropped = newNote(token, one);
      await shieldDirectly(dropped);
      expect((await service.get(`/incognito/${network}/leaves?from=${total}`)).body.leaves).toEqual([
        fieldToHex(noteCommitment(dropped)),
      ]);
      await c.test.revert({ id: snapshot });
      const kept = newNote(token, one);
      await shieldDirectly(kept);
      await c.test.mine({ blocks: 1 });
      const page = (await service.get(`/incognito/${network}/leaves?from=${total}`)).body;
      expect(page.leaves).toEqual([fieldToHex(noteCommitment(kept))]);
      expect(BigInt(page.root)).toBe(
        await c.public.readContract({ address: pool, abi: privacyPoolAbi, functionName: "currentRoot" }),
      );
    }, 60_000);
  });
}
