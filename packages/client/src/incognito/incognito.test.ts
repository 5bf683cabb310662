import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import * as snarkjs from "snarkjs";
import type { Address } from "viem";
import type { Relay402Client } from "../client.js";
import { buildTree, fieldToHex, newNote, noteCommitment, randomFieldElement } from "../wire/incognito/notes.js";
import { fromSolidityProof, publicSignalsArray, verifyUnshield } from "../wire/incognito/proof.js";
import { SNARK_BASE_FIELD, SNARK_SCALAR_FIELD } from "../wire/incognito/protocol.js";
import { maxWithdrawal, proveUnshieldNote, unshieldFee } from "./incognito.js";
import { packagedCircuit } from "./packaged-circuit.js";

const address = (digit: string) => `0x${digit.repeat(40)}` as Address;
const token = address("3");
const tokenConfig = {
  symbol: "M",
  address: token,
  decimals: 18,
  eip3009: false,
  fees: { feeBps: 50, minFee: "10", deploymentFeePerWallet: "0", unshieldFeeBps: 30, unshieldMinFee: "1000" },
  minPaymentValue: "1",
};

/** A service as the client sees it: /config with incognito on, and the leaves; nothing on a chain. */
function stubService(leaves: bigint[]): Relay402Client {
  const pool = address("2");
  return {
    url: "http://stub",
    get: async (path: string) => {
      if (path === "/config") {
        return {
          version: "test",
          networks: {
            bsc: {
              chainId: 56,
              eip712Domain: null,
              contracts: {
                relayer: address("a"),
                factory: address("b"),
                paymaster: address("c"),
                entryPoint: address("d"),
              },
              feeRecipient: address("e"),
              tokens: [tokenConfig],
              limits: { validBeforeMarginSeconds: 6 },
              incognito: { pool, circuitId: "test" },
            },
          },
        };
      }
      const from = Number(new URL(path, "http://stub").searchParams.get("from"));
      return {
        network: "bsc",
        pool,
        root: fieldToHex(buildTree(leaves).root),
        total: leaves.length,
        from,
        leaves: leaves.slice(from, from + 1000).map(fieldToHex),
      };
    },
    post: async () => {
      throw new Error("nothing is posted while proving");
    },
    getBytes: async () => {
      throw new Error("local artifacts: nothing is downloaded");
    },
  } as unknown as Relay402Client;
}

describe("unshield fees", () => {
  test("the minimum is max(unshieldMinFee, ceil(withdraw × bps / 10000)); maxWithdrawal leaves no change", () => {
    expect(unshieldFee(tokenConfig, 1000n)).toBe(1000n);
    expect(unshieldFee(tokenConfig, 10_000_000n)).toBe(30_000n);
    expect(unshieldFee(tokenConfig, 10_000_001n)).toBe(30_001n);
    for (const amount of [2000n, 10_030_000n, 10_030_001n, 123_456_789n]) {
      const withdraw = maxWithdrawal(tokenConfig, amount);
      expect(withdraw + unshieldFee(tokenConfig, withdraw)).toBeLessThanOrEqual(amount);
      expect(withdraw + 1n + unshieldFee(tokenConfig, withdraw + 1n)).toBeGreaterThan(amount);
    }
    expect(() => maxWithdrawal(tokenConfig, 1000n)).toThrow("minimum unshield fee");
  });
});

describe("proveUnshieldNote", () => {
  test("with local artifacts: a proof the verification key accepts for exactly the incognitoData it returns", async () => {
    const note = newNote(token, 10n ** 20n);
    const leaves = [randomFieldElement(), noteCommitment(note), randomFieldElement()];
    const recipient = address("f");
    const prepared = await proveUnshieldNote(stubService(leaves), {
      network: "bsc",
      note,
      withdrawAmount: 3n * 10n ** 19n,
      recipient,
      artifacts: await packagedCircuit(),
    });
    const data = prepared.incognitoData;
    expect(data.fee).toBe(((3n * 10n ** 19n * 30n) / 10_000n).toString());
    expect(prepared.change.amount).toBe(10n ** 20n - 3n * 10n ** 19n - BigInt(data.fee));
    expect(data.changeCommitment).toBe(fieldToHex(noteCommitment(prepared.change)));
    const signals = {
      root: BigInt(data.root),
      nullifierHash: BigInt(data.nullifierHash),
      token: BigInt(data.token),
      withdrawAmount: BigInt(data.withdrawAmount),
      recipient: BigInt(data.recipient),
      feeRecipient: BigInt(address("e")),
      fee: BigInt(data.fee),
      changeCommitment: BigInt(data.changeCommitment),
    };
    const key = JSON.parse(readFileSync(new URL("../../circuit/verification_key.json", import.meta.url), "utf8"));
    expect(await verifyUnshield(key, signals, data.proof)).toBe(true);
    // The proof binds the recipient and the fee recipient.
    expect(await verifyUnshield(key, { ...signals, recipient: BigInt(address("9")) }, data.proof)).toBe(false);
    expect(await verifyUnshield(key, { ...signals, feeRecipient: BigInt(address("8")) }, data.proof)).toBe(false);
    // snarkjs reduces a coordinate modulo q and a signal modulo r, so a shifted copy verifies there, never on-chain.
    const shifted = { ...data.proof, a: [(BigInt(data.proof.a[0]) + SNARK_BASE_FIELD).toString(), data.proof.a[1]] };
    expect(await snarkjs.groth16.verify(key, publicSignalsArray(signals), fromSolidityProof(shifted as never))).toBe(
      true,
    );
    expect(await verifyUnshield(key, signals, shifted as never)).toBe(false);
    expect(await verifyUnshield(key, { ...signals, root: signals.root + SNARK_SCALAR_FIELD }, data.proof)).toBe(false);
  }, 60_000);

  test("a note not in the tree, or a withdrawal beyond the note, is refused before proving", async () => {
    const note = newNote(token, 10n ** 20n);
    const service = stubService([randomFieldElement()]);
    const base = { network: "bsc" as const, note, recipient: address("f"), artifacts: { wasm: "x", zkey: "y" } };
    await expect(proveUnshieldNote(service, { ...base, withdrawAmount: 1n })).rejects.toMatchObject({
      details: { field: "note" },
    });
    await expect(proveUnshieldNote(service, { ...base, withdrawAmount: 10n ** 20n })).rejects.toMatchObject({
      details: { field: "withdrawAmount" },
    });
  });
});
