// What the incognito service tests share: a client's view of one test service (its leaves, its circuit files, a
// signed settle), the bodies they send, and each network's chain, token and pool.
import { expect } from "bun:test";
import { fieldToHex, type Note, noteCommitment, notePrecommitment } from "@relay402/client/wire/incognito/notes";
import type { SolidityProof } from "@relay402/client/wire/incognito/proof";
import type { Address, Hex } from "viem";
import { settleBody } from "../wallets/support";
import { chainOf, tokenBalance } from "./chain";
import type { startTestService } from "./service";

type TestService = ReturnType<typeof startTestService>;

/** A client of `service`: the tree's leaves page by page, the circuit's files as served, a signed settle. */
export function incognitoClientOf(service: TestService) {
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

  async function signAndSettle(verified: { userOp: Record<string, string>; userOpHash: Hex }, owner: any) {
    const settled = await service.post("/wallet/incognito/settle", await settleBody(verified, owner));
    expect(settled.status).toBe(200);
    expect(settled.body.success).toBe(true);
    // A UserOp flow's payment id is its userOpHash.
    expect(settled.body.paymentId).toBe(verified.userOpHash);
    return settled.body;
  }

  return { leavesOf, circuitFiles, signAndSettle };
}

/** A network's devnet chain, token, pool and fee recipient, and a mined-with-success check. */
export function incognitoNetwork(network: "bsc" | "base") {
  const c = chainOf(network);
  const token = c.token.address;
  return {
    c,
    token,
    pool: c.info.privacyPool,
    feeRecipient: c.info.feeRecipient,
    one: 10n ** BigInt(c.token.decimals),
    balance: (holder: Address) => tokenBalance(network, token, holder),
    mined: async (sent: Promise<Hex>) => {
      const receipt = await c.public.waitForTransactionReceipt({ hash: await sent, pollingInterval: 50 });
      expect(receipt.status).toBe("success");
    },
  };
}

export const unshieldMinimum = (withdraw: bigint, decimals: number) => {
  // The devnet's unshield fee: 30 bps, floor 0.05 token (scripts/devnet/service-config.ts).
  const proportional = (withdraw * 30n + 9_999n) / 10_000n;
  const floor = 10n ** BigInt(decimals) / 20n;
  return proportional > floor ? proportional : floor;
};

export const body = (network: string, wallet: Address, incognitoData: Record<string, unknown>) => ({
  walletAddress: wallet,
  incognitoData,
  paymentRequirements: { network },
});

/** The incognitoData of a shield of `note` (its token and amount, from the wallet into the pool). */
export const shieldData = (note: Note) => ({
  type: "shield",
  token: note.token,
  amount: note.amount.toString(),
  precommitment: fieldToHex(notePrecommitment(note)),
  commitment: fieldToHex(noteCommitment(note)),
});

export const unshieldData = (
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
