import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { erc20Abi } from "@relay402/client/wire/abis";
import { fieldToHex, newNote, noteCommitment, notePrecommitment } from "@relay402/client/wire/incognito/notes";
import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { freshPayer, NETWORK_NAMES } from "../support/chain";
import { incognitoNetwork } from "../support/incognito-service";
import { startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

for (const network of NETWORK_NAMES) {
  describe(`${network}: the service's leaf indexer across restarts and reorgs`, () => {
    const { c, token, pool, one, mined } = incognitoNetwork(network);

    test("a restarted service resumes the tree from its cursor, not from its start block", async () => {
      // The service indexes the pool as it is now (its cursor stored), a copy of its database is taken, then one
      // more leaf goes on-chain.
      const before = (await service.get(`/incognito/${network}/leaves`)).body.total;
      service.db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
      const copy = join(mkdtempSync(join(tmpdir(), "relay402-incognito-")), "relay402.sqlite");
      copyFileSync(service.databasePath, copy);
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
