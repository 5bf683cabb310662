// @relay402/client's incognito flow end to end over HTTP on the test devnet: a note shielded from wallet A, part of
// it unshielded to a fresh address from wallet B (proved on the client), and a verify answer tampered by a proxy
// in front of the real service refused before the owner signs. The chain's balances judge.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRelay402Client, Relay402ClientError, type SignerClient, tokenOf } from "@relay402/client";
import {
  decodeBatch,
  getIncognitoNetwork,
  maxWithdrawal,
  memoryNoteStorage,
  shield,
  spendableNotes,
  syncLeaves,
  unshield,
  unshieldFee,
} from "@relay402/client/incognito";
import { jsonFileNoteStorage } from "@relay402/client/incognito/json-file";
import { encodeBatchExecution } from "@relay402/client/wire/execution";
import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { fromRpcUserOp, type RpcUserOp, userOpHash } from "@relay402/client/wire/user-operation";
import { type Address, createWalletClient, decodeFunctionData, encodeFunctionData, type Hex, http } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { deployFundedWallet } from "../support/wallet";
import { paymasterDeposit, units } from "../wallets/support";

const network = "bsc";
const services = trackServices();
const service = services.start();
const server = Bun.serve({ port: 0, fetch: (request) => service.app.handle(request) });

/**
 * A man in the middle (or a dishonest service): forwards everything to the real service, but rewrites the shield
 * in a /wallet/incognito/verify answer to its own precommitment and recomputes the userOpHash, so the only thing
 * wrong is the note the deposit would go to.
 */
const attackerPrecommitment = 4242424242n;
const proxy = Bun.serve({
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    const forwarded = await fetch(`${server.url.origin}${url.pathname}${url.search}`, {
      method: request.method,
      headers: request.headers,
      body: request.method === "GET" ? undefined : await request.text(),
    });
    if (url.pathname !== "/wallet/incognito/verify" || forwarded.status !== 200) return forwarded;
    const answer = (await forwarded.json()) as { userOp: RpcUserOp; userOpHash: Hex };
    const calls = decodeBatch(answer.userOp.callData)!;
    const c = chainOf(network);
    for (const call of calls) {
      if (call.to.toLowerCase() !== c.info.privacyPool.toLowerCase()) continue;
      const { args } = decodeFunctionData({ abi: privacyPoolAbi, data: call.data });
      const [shieldToken, amount] = args as readonly [Address, bigint, bigint];
      call.data = encodeFunctionData({
        abi: privacyPoolAbi,
        functionName: "shield",
        args: [shieldToken, amount, attackerPrecommitment],
      });
    }
    answer.userOp.callData = encodeBatchExecution(calls);
    answer.userOpHash = userOpHash(fromRpcUserOp(answer.userOp), c.info.chainId, c.info.entryPoint);
    return Response.json(answer);
  },
});
afterAll(() => {
  proxy.stop(true);
  server.stop(true);
  services.stopAll();
});

const c = chainOf(network);
const token = c.token.address;
const pool = c.info.privacyPool;
const feeRecipient = c.info.feeRecipient;
const relay402 = createRelay402Client({ url: server.url.origin });
const balance = (holder: Address) => tokenBalance(network, token, holder);

/** The owner as a viem wallet client, counting its signatures. */
function signer(owner: PrivateKeyAccount) {
  const client = createWalletClient({ chain: c.chain, transport: http(c.info.rpcUrl), account: owner });
  const counted = { client: client as SignerClient, signatures: 0 };
  const signMessage = client.signMessage.bind(client);
  counted.client = {
    ...client,
    signMessage: (args: Parameters<typeof client.signMessage>[0]) => {
      counted.signatures++;
      return signMessage(args);
    },
  } as SignerClient;
  return counted;
}

describe("incognito through @relay402/client", () => {
  const storage = jsonFileNoteStorage(join(mkdtempSync(join(tmpdir(), "relay402-client-notes-")), "notes.json"));
  const hundred = units(network, 100n);

  test("shield 100 from wallet A, then unshield 30 to a fresh address from wallet B: every balance exact", async () => {
    const config = await getIncognitoNetwork(relay402, network);
    const tokenConfig = tokenOf(config, token);
    const a = await deployFundedWallet(network, units(network, 200n));
    const ownerA = signer(a.owner);
    const before = await Promise.all([a.wallet, pool, feeRecipient].map(balance));

    const shielded = await shield(relay402, {
      owner: ownerA.client,
      wallet: a.wallet,
      network,
      token,
      amount: hundred,
      storage,
    });
    const shieldFee = BigInt(shielded.verify.feeAmount);
    expect(shieldFee).toBe((hundred * BigInt(tokenConfig.fees.feeBps)) / 10_000n);
    expect(await Promise.all([a.wallet, pool, feeRecipient].map(balance))).toEqual([
      before[0]! - hundred - shieldFee,
      before[1]! + hundred,
      before[2]! + shieldFee,
    ]);
    const { leaves } = await syncLeaves(relay402, network);
    expect(shielded.note).toMatchObject({
      status: "shielded",
      amount: hundred,
      leafIndex: leaves.indexOf(BigInt(shielded.note.commitment)),
    });
    expect(shielded.note.leafIndex).toBeGreaterThanOrEqual(0);
    expect(await spendableNotes(storage, network, token)).toEqual([shielded.note]);

    // Wallet B: a fresh owner and wallet with no tokens; the recipient a fresh address.
    const b = await deployFundedWallet(network, 0n);
    const ownerB = signer(b.owner);
    const recipient = randomAddress();
    const withdraw = units(network, 30n);
    const fee = unshieldFee(tokenConfig, withdraw);
    const middle = await Promise.all([a.wallet, b.wallet, pool, feeRecipient].map(balance));
    const unshielded = await unshield(relay402, {
      owner: ownerB.client,
      wallet: b.wallet,
      network,
      note: shielded.note,
      withdrawAmount: withdraw,
      recipient,
      storage,
      leaves: leaves.slice(0, 1),
    });
    expect(ownerB.signatures).toBe(1);
    expect(unshielded.settlement.incognito).toMatchObject({ type: "unshield", amount: withdraw.toString(), recipient });
    expect(await balance(recipient)).toBe(withdraw);
    expect(await Promise.all([a.wallet, b.wallet, pool, feeRecipient].map(balance))).toEqual([
      middle[0]!,
      0n,
      middle[2]! - withdraw - fee,
      middle[3]! + fee,
    ]);
    // The change note (70 − fee) is in the tree where settle said, and it is the only spendable note.
    expect(unshielded.change.amount).toBe(hundred - withdraw - fee);
    const after = await syncLeaves(relay402, network, leaves);
    expect(after.leaves[unshielded.change.leafIndex!]).toBe(BigInt(unshielded.change.commitment));
    const notes = await storage.read();
    expect(notes.find((n) => n.commitment === shielded.note.commitment)?.status).toBe("spent");
    expect(await spendableNotes(storage, network, token)).toEqual([unshielded.change]);

    // Spending the spent note again is refused by the service (its nullifier is public now); nothing moves.
    const again = await unshield(relay402, {
      owner: ownerB.client,
      wallet: b.wallet,
      network,
      note: shielded.note,
      withdrawAmount: withdraw,
      recipient,
      leaves: after.leaves,
    }).catch((error) => error);
    expect(again).toBeInstanceOf(Relay402ClientError);
    expect(again).toMatchObject({ code: "validation_error", details: { field: "incognitoData.nullifierHash" } });
    expect(await balance(recipient)).toBe(withdraw);

    // Everything left, to another address from wallet C: change 0.
    const cWallet = await deployFundedWallet(network, 0n);
    const recipient2 = randomAddress();
    const all = maxWithdrawal(tokenConfig, unshielded.change.amount);
    const poolBefore = await balance(pool);
    const last = await unshield(relay402, {
      owner: signer(cWallet.owner).client,
      wallet: cWallet.wallet,
      network,
      note: unshielded.change,
      withdrawAmount: all,
      fee: unshielded.change.amount - all,
      recipient: recipient2,
      storage,
      leaves: after.leaves,
    });
    expect(last.change.amount).toBe(0n);
    expect(await balance(recipient2)).toBe(all);
    expect(await balance(pool)).toBe(poolBefore - unshielded.change.amount);
    expect(await spendableNotes(storage, network, token)).toEqual([]);
  }, 240_000);

  test("a verify answer whose shield carries another precommitment is refused before signing: nothing moves", async () => {
    const tampered = createRelay402Client({ url: proxy.url.origin });
    const a = await deployFundedWallet(network, units(network, 10n));
    const owner = signer(a.owner);
    const notes = memoryNoteStorage();
    const before = await Promise.all([a.wallet, pool, feeRecipient].map(balance));
    const total = (await syncLeaves(relay402, network)).leaves.length;
    const deposit = await paymasterDeposit(network);
    const refused = await shield(tampered, {
      owner: owner.client,
      wallet: a.wallet,
      network,
      token,
      amount: units(network, 5n),
      storage: notes,
    }).catch((error) => error);
    expect(refused).toBeInstanceOf(Relay402ClientError);
    expect(refused).toMatchObject({ code: "unexpected_response", details: { field: "incognitoData.precommitment" } });
    expect(owner.signatures).toBe(0);
    expect(await notes.read()).toEqual([]);
    // The proxy's UserOp would have shielded the deposit for the attacker: settle it never happened.
    expect(await Promise.all([a.wallet, pool, feeRecipient].map(balance))).toEqual(before);
    expect((await syncLeaves(relay402, network)).leaves.length).toBe(total);
    expect(await paymasterDeposit(network)).toBe(deposit);
    // Through the honest service the same shield goes through.
    const honest = await shield(relay402, {
      owner: owner.client,
      wallet: a.wallet,
      network,
      token,
      amount: units(network, 5n),
      storage: notes,
    });
    expect(honest.note.status).toBe("shielded");
    expect(await balance(pool)).toBe(before[1]! + units(network, 5n));
  }, 60_000);
});
