import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  buildTree,
  fieldToHex,
  newNote,
  noteCommitment,
  randomFieldElement,
  unshieldInput,
} from "@relay402/client/wire/incognito/notes";
import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { proveUnshield, type SolidityProof } from "@relay402/client/wire/incognito/proof";
import { SNARK_BASE_FIELD } from "@relay402/client/wire/incognito/protocol";
import { chainOf, NETWORK_NAMES, randomAddress } from "../support/chain";
import {
  body,
  incognitoClientOf,
  incognitoNetwork,
  shieldData,
  unshieldData,
  unshieldMinimum,
} from "../support/incognito-service";
import { startTestService } from "../support/service";
import { deployFundedWallet, expectRefusal, paymasterDeposit, settleBody, units } from "../wallets/support";

const service = startTestService();
afterAll(() => service.stop());
const { leavesOf, circuitFiles, signAndSettle } = incognitoClientOf(service);

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
    const { c, token, pool, feeRecipient, one, balance } = incognitoNetwork(network);
    const note = newNote(token, units(network, 100n));
    const recipient1 = randomAddress();
    const recipient2 = randomAddress();
    const withdraw1 = units(network, 30n);
    const fee1 = unshieldMinimum(withdraw1, c.token.decimals);
    const state: {
      firstUnshield?: ReturnType<typeof unshieldData>;
      change?: ReturnType<typeof unshieldInput>["changeNote"];
    } = {};

    test("shield 100 from wallet A: the pool gets 100, the fee recipient the wallet payment fee, the leaf is the note", async () => {
      const { owner, wallet } = await deployFundedWallet(network, units(network, 200n));
      const verified = await service.post("/wallet/incognito/verify", body(network, wallet, shieldData(note)));
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
  });
}
