import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../db/open";
import { createSettlementStore } from "../settlement/settlement-store";
import { groupCommit, RecordNotPendingError } from "./settlement-journal";

const dir = mkdtempSync(join(tmpdir(), "relay402-group-commit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The service's database and a second connection to the same file, which sees only what was committed. */
function databases(name: string) {
  const path = join(dir, `${name}.sqlite`);
  const db = openDatabase(path);
  db.$client.run("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)");
  const other = new Database(path, { readonly: true });
  const committed = () => (other.query("SELECT count(*) AS n FROM notes").get() as { n: number }).n;
  const insert = (text: string) => () => db.$client.run("INSERT INTO notes (text) VALUES (?)", [text]).changes;
  return { db, other, committed, insert };
}

test("writes issued in the same turn share one transaction, and each caller is answered after its commit", async () => {
  const { db, other, committed, insert } = databases("one-transaction");
  const commit = groupCommit(db);
  expect(groupCommit(db)).toBe(commit); // one group per database, whichever store asks
  const seenByOthers: number[] = [];
  const writes = ["a", "b", "c"].map((text) =>
    commit(() => {
      seenByOthers.push(committed());
      return insert(text)();
    }),
  );
  expect(committed()).toBe(0); // nothing runs before the turn ends
  expect(await Promise.all(writes)).toEqual([1, 1, 1]);
  // Inside one transaction no other connection sees the first rows while the later writes run.
  expect(seenByOthers).toEqual([0, 0, 0]);
  expect(committed()).toBe(3);

  // A later turn is a new transaction.
  await commit(insert("d"));
  expect(committed()).toBe(4);
  other.close();
});

test("a write that fails fails only its own caller: the others are retried alone and committed", async () => {
  const { db, other, committed, insert } = databases("failure");
  const commit = groupCommit(db);
  await commit(insert("taken"));
  const results = await Promise.allSettled([commit(insert("x")), commit(insert("taken")), commit(insert("y"))]);
  expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  expect(committed()).toBe(3);
  other.close();
});

test("the journal write before a broadcast takes only a pending record: one released meanwhile is refused", async () => {
  const db = openDatabase(join(dir, "journal.sqlite"));
  const store = createSettlementStore(db);
  const claim = () =>
    store.claim({
      network: "bsc",
      payer: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
      nonce: `0x${crypto.randomUUID().replaceAll("-", "").padStart(64, "0")}`,
      token: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
      recipient: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
      amount: "1",
      validAfter: 0,
      validBefore: 4_102_444_800,
      signature: `0x${"ab".repeat(65)}`,
      paymentId: null,
    }).record;
  const kept = claim();
  await store.journalSent(kept.id, "0x01", "0x02");
  expect(store.find(kept)).toMatchObject({ status: "sent", txHash: "0x01", rawTx: "0x02" });
  // Sent already: a second journal write for it is refused too (a record is signed and journaled once).
  await expect(store.journalSent(kept.id, "0x03", "0x04")).rejects.toBeInstanceOf(RecordNotPendingError);

  const released = claim();
  store.release(released.id);
  await expect(store.journalSent(released.id, "0x05", "0x06")).rejects.toBeInstanceOf(RecordNotPendingError);
  expect(store.find(released)).toBeUndefined();
  db.$client.close();
});
