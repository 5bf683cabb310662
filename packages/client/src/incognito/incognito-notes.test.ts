import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "viem";
import type { Relay402Client } from "../client.js";
import { Relay402ClientError } from "../errors.js";
import { buildTree, fieldToHex, newNote, noteCommitment } from "../wire/incognito/notes.js";
import { reconcileNotes, syncLeaves } from "./incognito.js";
import {
  memoryNoteStorage,
  notesFromJson,
  notesToJson,
  putNote,
  spendableNotes,
  storedNote,
} from "./incognito-notes.js";
import { jsonFileNoteStorage } from "./json-file.js";

const token = `0x${"3".repeat(40)}` as Address;

describe("note storage", () => {
  test("a JSON file keeps notes exactly (bigints as strings, secrets as field hex), readable only by its owner", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "relay402-notes-")), "notes.json");
    const storage = jsonFileNoteStorage(path);
    expect(await storage.read()).toEqual([]);
    const a = storedNote("bsc", newNote(token, 100n), "shielded");
    const b = storedNote("base", newNote(token, 2n ** 127n), "pending");
    await putNote(storage, a);
    await putNote(storage, b);
    await putNote(storage, { ...a, status: "spent" });
    expect(await storage.read()).toEqual([{ ...a, status: "spent" }, b]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, "utf8")).toContain(fieldToHex(b.secret));
    expect(await spendableNotes(storage, "bsc")).toEqual([]);
    expect(await spendableNotes(storage, "base")).toEqual([]);
    await putNote(storage, { ...b, status: "shielded" });
    expect((await spendableNotes(storage, "base", token)).map((n) => n.commitment)).toEqual([b.commitment]);
  });

  test("a note whose commitment does not match its secrets is refused when read", () => {
    const note = storedNote("bsc", newNote(token, 5n), "shielded");
    expect(notesFromJson(notesToJson([note]))).toEqual([note]);
    const forged = JSON.parse(notesToJson([note]));
    forged.notes[0].amount = "6";
    expect(() => notesFromJson(JSON.stringify(forged))).toThrow("does not match");
    expect(() => notesFromJson("{}")).toThrow("version 1");
  });

  test("pending notes found in the tree become shielded at their index", async () => {
    const pending = storedNote("bsc", newNote(token, 7n), "pending");
    const missing = storedNote("bsc", newNote(token, 8n), "pending");
    const storage = memoryNoteStorage([pending, missing]);
    const found = await reconcileNotes(storage, "bsc", [1n, 2n, BigInt(pending.commitment)]);
    expect(found.map((n) => n.commitment)).toEqual([pending.commitment]);
    expect(await storage.read()).toEqual([{ ...pending, status: "shielded", leafIndex: 2 }, missing]);
  });
});

/** A client whose /leaves pages come from `leaves` (`pageSize` at most), stating `root` and `total`. */
function pagingClient(leaves: bigint[], pageSize: number, overrides: { root?: bigint; total?: number } = {}) {
  const asked: number[] = [];
  const client = {
    url: "http://stub",
    get: async (path: string) => {
      const from = Number(new URL(path, "http://stub").searchParams.get("from"));
      asked.push(from);
      return {
        network: "bsc",
        pool: `0x${"2".repeat(40)}`,
        root: fieldToHex(overrides.root ?? (leaves.length ? buildTree(leaves).root : 0n)),
        total: overrides.total ?? leaves.length,
        from,
        leaves: leaves.slice(from, from + pageSize).map(fieldToHex),
      };
    },
    post: async () => {
      throw new Error("no post");
    },
    getBytes: async () => new Uint8Array(),
  } as unknown as Relay402Client;
  return { client, asked };
}

describe("syncLeaves", () => {
  const leaves = Array.from({ length: 25 }, () => noteCommitment(newNote(token, 1n)));

  test("reads every page in order and checks the root; a synced prefix is not fetched again", async () => {
    const { client, asked } = pagingClient(leaves, 10);
    const synced = await syncLeaves(client, "bsc");
    expect(synced.leaves).toEqual(leaves);
    expect(synced.root).toBe(buildTree(leaves).root);
    expect(asked).toEqual([0, 10, 20]);
    const again = pagingClient(leaves, 10);
    expect((await syncLeaves(again.client, "bsc", leaves.slice(0, 20))).leaves).toEqual(leaves);
    expect(again.asked).toEqual([20]);
    expect((await syncLeaves(pagingClient([], 10).client, "bsc")).root).toBe(0n);
  });

  test("leaves that do not make the stated root, or fewer than the stated total, are refused", async () => {
    const wrongRoot = pagingClient(leaves, 10, { root: 5n });
    await expect(syncLeaves(wrongRoot.client, "bsc")).rejects.toBeInstanceOf(Relay402ClientError);
    const short = pagingClient(leaves, 10, { total: 30 });
    await expect(syncLeaves(short.client, "bsc")).rejects.toThrow("counts 30");
  });
});
