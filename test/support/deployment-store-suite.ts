// The deployment store's behaviour (src/deploy/deployment-store.ts's port), written once and run on each database:
// test/deploy/deployment-store-sqlite.test.ts (asAsync over the SQLite store) and deployment-store-postgres.test.ts.
// Every "instance" is a connection (pool) of its own to one real database; nothing of the store is mocked. The races
// are many concurrent calls from several instances: each reservation, lease and count must be decided exactly once.
// This file: creating batches and reserving their wallets; deployment-steps-suite.ts: leasing, counting and
// concluding their steps.
import { expect, test } from "bun:test";
import { WalletReservedError } from "../../src/deploy/deployment-store";
import {
  type DeploymentStoreDatabase,
  fulfilled,
  newBatch,
  newWallet,
  rejected,
  settled,
  storeInstances,
  wallet,
} from "./deployment-store-fixtures";

export function deploymentStoreSuite(database: DeploymentStoreDatabase) {
  const { pick, store } = storeInstances(database);

  test("create records the batch and reserves its wallets (lower-cased, in order); every read finds them", async () => {
    const addresses = [wallet(), wallet(), wallet()];
    const batch = await store.create(newBatch(), [
      newWallet(addresses[0]),
      newWallet(addresses[1], false),
      newWallet(addresses[2]),
    ]);
    expect(batch).toMatchObject({
      paymentStatus: "pending",
      paymentTxHash: null,
      result: null,
      fundingRequested: true,
    });
    expect(typeof batch.id).toBe("number");
    expect(await store.batch(batch.id)).toEqual(batch);
    expect(await store.findBatch(batch.batchKey)).toEqual(batch);
    const rows = await store.walletsOf(batch.id);
    expect(rows.map((row) => row.walletAddress)).toEqual(addresses.map((a) => a.toLowerCase()));
    expect(rows.map((row) => row.position)).toEqual([0, 1, 2]);
    expect(rows.map((row) => row.fundingStatus)).toEqual(["pending", "none", "pending"]);
    for (const row of rows) {
      expect(row).toMatchObject({
        batchId: batch.id,
        network: "base",
        owner: batch.owner,
        reserved: true,
        deploymentStatus: "pending",
        deploymentAttempts: 0,
        deploymentRetryAfter: null,
      });
    }
    const reservation = await pick(1).reservation("base", (addresses[1] as string).toUpperCase().replace("0X", "0x"));
    expect(reservation?.id).toBe(rows[1]?.id as number);
    expect(await store.reservation("bsc", addresses[1] as string)).toBeUndefined();
    // A claim's scope is matched lower-cased (the flows store the payer lower-cased).
    expect((await store.batchesFor({ payer: batch.payer.toUpperCase().replace("0X", "0x") })).map((b) => b.id)).toEqual(
      [batch.id],
    );
    const owned = await store.walletsOfOwner(batch.owner.toUpperCase().replace("0X", "0x"), "base");
    expect(owned.filter(({ batch: b }) => b.id === batch.id).map(({ wallet: w }) => w.id)).toEqual(
      rows.map((row) => row.id),
    );
    expect(await store.walletsOfOwner(batch.owner, "bsc")).toEqual([]);
  });

  test("a wallet reserved by a live batch refuses a second batch with WalletReservedError, leaving nothing of it", async () => {
    const taken = wallet();
    const free = wallet();
    const first = await store.create(newBatch(), [newWallet(taken)]);
    const second = newBatch();
    const error = await pick(1)
      .create(second, [newWallet(free), newWallet(taken)])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WalletReservedError);
    expect((error as WalletReservedError).walletAddress).toBe(taken);
    expect(await store.findBatch(second.batchKey)).toBeUndefined();
    expect(await store.reservation("base", free)).toBeUndefined();
    expect((await store.reservation("base", taken))?.batchId).toBe(first.id);
    // Another network is another wallet.
    const elsewhere = await store.create(newBatch({ network: "bsc" }), [newWallet(taken)]);
    expect((await store.reservation("bsc", taken))?.batchId).toBe(elsewhere.id);
  });

  test("a failed payment frees the wallets: a new batch reserves them; the failure is the stored result", async () => {
    const address = wallet();
    const first = await store.create(newBatch(), [newWallet(address)]);
    await store.failPayment(first.id, { txHash: "0xdead", error: "fee refused", result: { error: { code: "x" } } });
    expect(await store.batch(first.id)).toMatchObject({
      paymentStatus: "failed",
      paymentTxHash: "0xdead",
      paymentError: "fee refused",
      result: JSON.stringify({ error: { code: "x" } }),
    });
    expect((await store.walletsOf(first.id)).every((row) => !row.reserved)).toBe(true);
    expect(await store.reservation("base", address)).toBeUndefined();
    const second = await pick(2).create(newBatch(), [newWallet(address)]);
    expect((await store.reservation("base", address))?.batchId).toBe(second.id);
  });

  test("the same batch key created twice: the second create throws (not a reservation) and the first stays", async () => {
    const batch = newBatch();
    const first = await store.create(batch, [newWallet()]);
    const error = await pick(1)
      .create(batch, [newWallet()])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(WalletReservedError);
    expect(await store.findBatch(batch.batchKey)).toEqual(first);
  });

  test("race: 24 batches from 4 instances reserving the same wallet at once -> exactly one, the others WalletReservedError", async () => {
    const contested = wallet();
    const batches = Array.from({ length: 24 }, () => newBatch());
    const results = await settled(
      batches.map((batch, i) => pick(i).create(batch, [newWallet(), newWallet(contested), newWallet()])),
    );
    const winners = fulfilled(results);
    expect(winners).toHaveLength(1);
    const errors = rejected(results);
    expect(errors).toHaveLength(23);
    for (const error of errors) {
      expect(error).toBeInstanceOf(WalletReservedError);
      expect((error as WalletReservedError).walletAddress).toBe(contested);
    }
    const winner = winners[0] as { id: number; batchKey: string };
    expect((await store.reservation("base", contested))?.batchId).toBe(winner.id);
    // The losers left nothing: no batch, and their other wallets are free.
    for (const batch of batches) {
      const found = await store.findBatch(batch.batchKey);
      if (batch.batchKey === winner.batchKey) expect(found?.id).toBe(winner.id);
      else expect(found).toBeUndefined();
    }
    expect((await store.walletsOf(winner.id)).filter((row) => row.reserved)).toHaveLength(3);
  });

  test("race: batches sharing wallets in different orders, 20 rounds -> one wins each round, never a deadlock", async () => {
    for (let round = 0; round < 20; round++) {
      const shared = Array.from({ length: 8 }, () => wallet());
      const orders = [shared, [...shared].reverse(), [...shared.slice(4), ...shared.slice(0, 4)]];
      const results = await settled(
        orders.map((order, i) =>
          pick(round + i).create(
            newBatch(),
            order.map((address) => newWallet(address)),
          ),
        ),
      );
      expect(fulfilled(results)).toHaveLength(1);
      const errors = rejected(results);
      expect(errors).toHaveLength(2);
      for (const error of errors) expect(error).toBeInstanceOf(WalletReservedError);
    }
  });

  test("race: 8 distinct batches from 4 instances at once, disjoint wallets -> all 8 recorded", async () => {
    const results = await settled(
      Array.from({ length: 8 }, (_, i) => pick(i).create(newBatch(), [newWallet(), newWallet()])),
    );
    expect(fulfilled(results)).toHaveLength(8);
  });
}
