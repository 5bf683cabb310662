import { describe, expect, test } from "bun:test";
import { erc20Abi } from "@relay402/client/wire/abis";
import {
  buildTree,
  newNote,
  noteCommitment,
  notePrecommitment,
  randomFieldElement,
  unshieldInput,
} from "@relay402/client/wire/incognito/notes";
import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { proveUnshield } from "@relay402/client/wire/incognito/proof";
import { type Address, BaseError, ContractFunctionRevertedError, getAddress, parseEventLogs } from "viem";
import { CANONICAL } from "../../src/chain/canonical";
import { CIRCUIT_ARTIFACTS } from "../../src/incognito/artifacts";
import { chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";

describe("privacy pool on the devnet", () => {
  const POSEIDON_T3: Address = CANONICAL.poseidonT3.address;
  const POSEIDON_T4: Address = CANONICAL.poseidonT4.address;

  test("the pool, its verifier and the Poseidon libraries have code at the same addresses on both networks", async () => {
    const [bsc, base] = NETWORK_NAMES.map(chainOf);
    expect(bsc!.info.privacyPool).toBe(base!.info.privacyPool);
    for (const c of [bsc!, base!]) {
      const pool = c.info.privacyPool;
      const verifier = await c.public.readContract({ address: pool, abi: privacyPoolAbi, functionName: "verifier" });
      for (const address of [pool, verifier, POSEIDON_T3, POSEIDON_T4]) {
        expect((await c.public.getCode({ address }))?.length ?? 0).toBeGreaterThan(2);
      }
      expect(await c.public.readContract({ address: pool, abi: privacyPoolAbi, functionName: "whitelist" })).toBe(
        c.info.relayer,
      );
      expect(POSEIDON_T3).toBe(getAddress("0x3333333C0A88F9BE4fd23ed0536F9B6c427e3B93"));
    }
  });

  test("base: shield, then unshield with a real proof from a tree rebuilt from the pool's events", async () => {
    const c = chainOf("base");
    const pool = c.info.privacyPool;
    const payer = await freshPayer("base");
    const wallet = c.walletFor(payer.key);
    const amount = 100n * 10n ** BigInt(c.token.decimals);
    const note = newNote(c.token.address, amount);
    const wait = async (hash: `0x${string}`) => {
      const receipt = await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      expect(receipt.status).toBe("success");
      return receipt;
    };

    await wait(
      await wallet.writeContract({
        address: c.token.address,
        abi: erc20Abi,
        functionName: "approve",
        args: [pool, amount],
      }),
    );
    const poolBefore = await tokenBalance("base", c.token.address, pool);
    const shieldReceipt = await wait(
      await wallet.writeContract({
        address: pool,
        abi: privacyPoolAbi,
        functionName: "shield",
        args: [c.token.address, amount, notePrecommitment(note)],
      }),
    );
    const [shielded] = parseEventLogs({ abi: privacyPoolAbi, eventName: "Shielded", logs: shieldReceipt.logs });
    expect(shielded!.args.commitment).toBe(noteCommitment(note));
    expect(await tokenBalance("base", c.token.address, pool)).toBe(poolBefore + amount);

    // A client's view: every leaf in order from the pool's events, nothing from the service.
    const inserted = await c.public.getContractEvents({
      address: pool,
      abi: privacyPoolAbi,
      eventName: "LeafInserted",
      fromBlock: 0n,
    });
    const leaves = inserted.map((log) => log.args.commitment!);
    expect(leaves[Number(shielded!.args.leafIndex)]).toBe(noteCommitment(note));

    const recipient = randomAddress();
    const feeRecipient = c.info.feeRecipient;
    const feeBefore = await tokenBalance("base", c.token.address, feeRecipient);
    const { input, root, nullifierHash, changeCommitment } = unshieldInput({
      note,
      tree: buildTree(leaves),
      withdrawAmount: 30n * 10n ** BigInt(c.token.decimals),
      fee: 10n ** BigInt(c.token.decimals),
      recipient,
      feeRecipient,
      change: { nullifier: randomFieldElement(), secret: randomFieldElement() },
    });
    const { proof } = await proveUnshield(input, CIRCUIT_ARTIFACTS.wasm, CIRCUIT_ARTIFACTS.zkey);
    const toUint = (p: typeof proof) => ({
      a: p.a.map(BigInt) as [bigint, bigint],
      b: p.b.map((pair) => pair.map(BigInt)) as unknown as [[bigint, bigint], [bigint, bigint]],
      c: p.c.map(BigInt) as [bigint, bigint],
    });
    const args = [
      toUint(proof),
      root,
      nullifierHash,
      c.token.address,
      30n * 10n ** BigInt(c.token.decimals),
      recipient,
      feeRecipient,
      10n ** BigInt(c.token.decimals),
      changeCommitment,
    ] as const;
    // Anyone may send it (another wallet than the depositor's): the proof binds where the money goes.
    const sender = await freshPayer("base", { tokens: 0n });
    const unshieldReceipt = await wait(
      await c
        .walletFor(sender.key)
        .writeContract({ address: pool, abi: privacyPoolAbi, functionName: "unshield", args }),
    );
    const [unshielded] = parseEventLogs({ abi: privacyPoolAbi, eventName: "Unshielded", logs: unshieldReceipt.logs });
    expect(unshielded!.args.nullifierHash).toBe(nullifierHash);
    expect(unshielded!.args.changeCommitment).toBe(changeCommitment);
    expect(await tokenBalance("base", c.token.address, recipient)).toBe(30n * 10n ** BigInt(c.token.decimals));
    expect(await tokenBalance("base", c.token.address, feeRecipient)).toBe(feeBefore + 10n ** BigInt(c.token.decimals));
    expect(await tokenBalance("base", c.token.address, pool)).toBe(
      poolBefore + amount - 31n * 10n ** BigInt(c.token.decimals),
    );

    // The same proof again is refused before it pays anything.
    const error = await c.public
      .simulateContract({ address: pool, abi: privacyPoolAbi, functionName: "unshield", args, account: sender.address })
      .catch((e: unknown) => e);
    const reverted =
      error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
    expect((reverted as ContractFunctionRevertedError | undefined)?.data?.errorName).toBe("NullifierAlreadySpent");
  }, 60_000);
});
