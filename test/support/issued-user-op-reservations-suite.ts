// The issued-UserOp store's reservations of incognito nullifiers and leaves, run on each database by the same test
// files as issued-user-ops-suite.ts.
import { expect, test } from "bun:test";
import type { AsyncIssuedUserOpStore, NewIssuedUserOp } from "../../src/userops/issued-user-op-store";
import { address, INSTANCES, type IssuedStoreDatabase, issuedStoreFixtures, NOW } from "./issued-user-ops-fixtures";

export function issuedUserOpReservationsSuite(database: IssuedStoreDatabase) {
  const { instances, newIssue, issue } = issuedStoreFixtures(database);

  test("reservation: the incognito UserOp that may still spend a nullifier, or did; not a failed, expired or other one", async () => {
    const [a, b] = (await instances(2)) as [AsyncIssuedUserOpStore, AsyncIssuedUserOpStore];
    const nullifier = (n: number) => `0x${n.toString(16).padStart(64, "a")}`;
    // Each spend inserts a change leaf of its own: only the nullifier is shared here.
    const spending = (nullifierHash: string) => ({ nullifierHash, leaf: `0x${"e".repeat(64)}` });
    const spend = (n: number, expiresAt: number, over: Partial<NewIssuedUserOp> = {}) =>
      issue(a, address(0x5eed), expiresAt, {
        kind: "incognito",
        context: JSON.stringify({ type: "unshield", nullifierHash: nullifier(n), feeAmount: "1" }),
        ...over,
      });

    // Nothing issued for it: spendable.
    expect(await b.reservation("bsc", spending(nullifier(1)), NOW)).toBeUndefined();

    // Issued and unexpired: pending, on that network only, whatever the case of the hash asked about.
    const issued = await spend(1, NOW + 60);
    expect(await b.reservation("bsc", spending(nullifier(1)), NOW)).toEqual({
      userOpHash: issued,
      expiresAt: NOW + 60,
      on: "nullifierHash",
    });
    expect(await b.reservation("bsc", spending(nullifier(1).toUpperCase().replace("0X", "0x")), NOW)).toEqual({
      userOpHash: issued,
      expiresAt: NOW + 60,
      on: "nullifierHash",
    });
    expect(await b.reservation("base", spending(nullifier(1)), NOW)).toBeUndefined();
    // Its paymaster data expired: the EntryPoint refuses it, the note is spendable again.
    expect(await b.reservation("bsc", spending(nullifier(1)), NOW + 60)).toBeUndefined();

    // Being sent: pending until it expires.
    const sending = await spend(2, NOW + 60);
    await a.claim(sending);
    expect((await b.reservation("bsc", spending(nullifier(2)), NOW))?.userOpHash).toBe(sending);
    expect(await b.reservation("bsc", spending(nullifier(2)), NOW + 61)).toBeUndefined();

    // Executed: spent for good, expired or not.
    const spent = await spend(3, NOW - 600);
    await a.claim(spent);
    await a.finish(spent, { status: "success", txHash: "0x02", result: {} });
    expect(await b.reservation("bsc", spending(nullifier(3)), NOW)).toEqual({
      userOpHash: spent,
      expiresAt: NOW - 600,
      on: "nullifierHash",
    });

    // Reverted or refused: the note was not spent.
    const failed = await spend(4, NOW + 60);
    await a.claim(failed);
    await a.finish(failed, { status: "failed", result: { code: "userop_error" } });
    expect(await b.reservation("bsc", spending(nullifier(4)), NOW)).toBeUndefined();
    // ...and a new unshield of it is pending again.
    const retried = await spend(4, NOW + 120);
    expect((await b.reservation("bsc", spending(nullifier(4)), NOW))?.userOpHash).toBe(retried);

    // The same nullifier in another kind's context is not an incognito spend; a shield has no nullifier.
    await issue(a, address(0x5eed), NOW + 60, { context: JSON.stringify({ nullifierHash: nullifier(5) }) });
    await spend(6, NOW + 60, { context: JSON.stringify({ type: "shield", feeAmount: "1" }) });
    expect(await b.reservation("bsc", spending(nullifier(5)), NOW)).toBeUndefined();
    expect(await b.reservation("bsc", spending(nullifier(6)), NOW)).toBeUndefined();
    // Another nullifier's spend is not this one's.
    expect((await b.reservation("bsc", spending(nullifier(1)), NOW))?.userOpHash).toBe(issued);
    expect((await b.reservation("bsc", spending(nullifier(3)), NOW))?.userOpHash).toBe(spent);
  });

  test("issueUnlessReserved: 20 unshields of one note issued at once from four instances -> one issued, the others told which", async () => {
    const stores = await instances(INSTANCES);
    const [a] = stores as [AsyncIssuedUserOpStore];
    const nullifierHash = `0x${"b".repeat(64)}`;
    const change = (n: number) => `0x${n.toString(16).padStart(64, "c")}`;
    const keys = (nullifier: string, n: number) => ({ nullifierHash: nullifier, leaf: change(n) });
    const attempt = (n: number, expiresAt = NOW + 60) =>
      newIssue(address(0x5eed), expiresAt, {
        kind: "incognito",
        context: JSON.stringify({ type: "unshield", nullifierHash, changeCommitment: change(n), attempt: n }),
      });
    for (let round = 0; round < 3; round++) {
      const attempts = Array.from({ length: 20 }, (_, i) => attempt(i));
      const answers = await Promise.all(
        attempts.map((record, i) =>
          (stores[i % INSTANCES] as AsyncIssuedUserOpStore).issueUnlessReserved(
            record,
            keys(nullifierHash.toUpperCase().replace("0X", "0x"), i),
            NOW,
          ),
        ),
      );
      const issued = attempts.filter((_, i) => answers[i] === undefined);
      expect(issued).toHaveLength(1);
      const winner = issued[0] as NewIssuedUserOp;
      expect(answers.filter(Boolean)).toEqual(
        Array(19).fill({ userOpHash: winner.userOpHash, expiresAt: winner.expiresAt, on: "nullifierHash" }),
      );
      for (const record of attempts) {
        expect((await a.find(record.userOpHash))?.status).toBe(record === winner ? "issued" : undefined);
      }
      // The winner's UserOp reverted: the note is spendable again, by one of the next round's attempts.
      await a.claim(winner.userOpHash);
      await a.finish(winner.userOpHash, { status: "failed", result: { code: "blockchain_error" } });
    }
    // An expired spend does not block; another network's spend of the same hash neither.
    const late = attempt(100, NOW + 10);
    expect(await a.issueUnlessReserved(late, keys(nullifierHash, 100), NOW)).toBeUndefined();
    expect(await a.issueUnlessReserved(attempt(101), keys(nullifierHash, 101), NOW + 10)).toBeUndefined();
    const elsewhere = { ...attempt(102), network: "base" };
    expect(await a.issueUnlessReserved(elsewhere, keys(nullifierHash, 102), NOW + 10)).toBeUndefined();
    expect((await a.find(elsewhere.userOpHash))?.network).toBe("base");
  });

  test("issueUnlessReserved: 20 shields of one commitment and unshields whose change is that commitment, issued at once from four instances -> one issued", async () => {
    const stores = await instances(INSTANCES);
    const [a, b] = stores as [AsyncIssuedUserOpStore, AsyncIssuedUserOpStore];
    const leaf = `0x${"d".repeat(64)}`;
    // Even attempts shield the note, odd ones unshield another note (a nullifier of their own) into it as change.
    const attempt = (n: number, expiresAt = NOW + 60) => {
      const nullifierHash = `0x${n.toString(16).padStart(64, "f")}`;
      const context =
        n % 2 === 0
          ? { type: "shield", commitment: leaf, attempt: n }
          : { type: "unshield", nullifierHash, changeCommitment: leaf, attempt: n };
      const record = newIssue(address(0x5eed), expiresAt, { kind: "incognito", context: JSON.stringify(context) });
      const keys = n % 2 === 0 ? { leaf: leaf.toUpperCase().replace("0X", "0x") } : { nullifierHash, leaf };
      return { record, keys };
    };
    for (let round = 0; round < 3; round++) {
      const attempts = Array.from({ length: 20 }, (_, i) => attempt(round * 100 + i));
      const answers = await Promise.all(
        attempts.map(({ record, keys }, i) =>
          (stores[i % INSTANCES] as AsyncIssuedUserOpStore).issueUnlessReserved(record, keys, NOW),
        ),
      );
      const issued = attempts.filter((_, i) => answers[i] === undefined);
      expect(issued).toHaveLength(1);
      const winner = (issued[0] as (typeof attempts)[number]).record;
      expect(answers.filter(Boolean)).toEqual(
        Array(19).fill({ userOpHash: winner.userOpHash, expiresAt: winner.expiresAt, on: "leaf" }),
      );
      for (const { record } of attempts) {
        expect((await a.find(record.userOpHash))?.status).toBe(record === winner ? "issued" : undefined);
      }
      expect(await b.reservation("bsc", { leaf }, NOW)).toEqual({
        userOpHash: winner.userOpHash,
        expiresAt: winner.expiresAt,
        on: "leaf",
      });
      expect(await b.reservation("bsc", { leaf }, NOW + 60)).toBeUndefined();
      expect(await b.reservation("base", { leaf }, NOW)).toBeUndefined();
      // The winner reverted: the leaf is free again, for one of the next round's attempts.
      await a.claim(winner.userOpHash);
      await a.finish(winner.userOpHash, { status: "failed", result: { code: "blockchain_error" } });
      expect(await b.reservation("bsc", { leaf }, NOW)).toBeUndefined();
    }
    // Inserted for good: the leaf stays held, expired or not; another kind's context holding it is no reservation.
    const done = attempt(1000, NOW - 600);
    expect(await a.issueUnlessReserved(done.record, done.keys, NOW - 700)).toBeUndefined();
    await a.claim(done.record.userOpHash);
    await a.finish(done.record.userOpHash, { status: "success", txHash: "0x03", result: {} });
    expect((await b.reservation("bsc", { leaf }, NOW))?.userOpHash).toBe(done.record.userOpHash);
    const other = `0x${"9".repeat(64)}`;
    await issue(a, address(0x5eed), NOW + 60, { context: JSON.stringify({ commitment: other }) });
    expect(await b.reservation("bsc", { leaf: other }, NOW)).toBeUndefined();
  });
}
