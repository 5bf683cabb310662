// The behaviour of executor key leases (src/chain/key-leases.ts over a KeyLeaseStore), written once and run on
// each database: test/chain/key-leases-postgres.test.ts and key-leases-sqlite.test.ts. Every "instance" is a
// connection (pool) of its own with an id of its own, on one real database; nothing of the store is mocked.
import { expect, test } from "bun:test";
import type { KeyLeaseStore } from "../../src/chain/key-lease-store";
import { createKeyLeases, type KeyLeases, type KeyLeasesOptions } from "../../src/chain/key-leases";
import { until as untilWithin } from "./until";

const until = (what: string, check: () => boolean | Promise<boolean>) => untilWithin(what, check, { pollMs: 10 });

export type LeaseDatabase = {
  /** A new connection (pool) to the shared database: one instance's. */
  connect(): Promise<{ store: KeyLeaseStore; close(): Promise<void> }>;
  /** Runs SQL on the shared database outside every instance (what a clock jump or a stuck instance would leave). */
  exec(statement: string): Promise<void>;
};

let networks = 0;
/** A network name of its own per test, so tests on one database never see each other's rows. */
const freshNetwork = () => `net${++networks}`;
const keysFor = (count: number) =>
  Array.from({ length: count }, (_, i) => `0x${(i + 1).toString(16).padStart(2, "0").repeat(20)}`);

export function keyLeaseSuite(database: LeaseDatabase) {
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const done of cleanups.splice(0).reverse()) await done().catch(() => undefined);
  };

  /** An instance: its own connection, its own id, its own KeyLeases. */
  async function instance(
    id: string,
    options: Omit<KeyLeasesOptions, "store" | "instanceId"> & { onTakeover?: (address: string) => unknown },
  ) {
    const connection = await database.connect();
    const takeovers: string[] = [];
    const lost: [string, string][] = [];
    const leases: KeyLeases = createKeyLeases({
      ...options,
      store: connection.store,
      instanceId: id,
      onTakeover: async (address) => {
        takeovers.push(address);
        // Resolved first: the key is not reported held while its takeover runs.
        expect(leases.holds(address)).toBe(false);
        await options.onTakeover?.(address);
      },
      onLost: (address, reason) => lost.push([address, reason]),
    });
    cleanups.push(async () => {
      await leases.stop({ release: false });
      await connection.close();
    });
    return { leases, store: connection.store, takeovers, lost, close: connection.close };
  }

  /** Fails when a key is held by two instances at once. */
  const assertDisjoint = (instances: { leases: KeyLeases }[]) => {
    const seen = new Map<string, string>();
    for (const { leases } of instances) {
      for (const address of leases.held()) {
        expect(seen.get(address)).toBeUndefined();
        seen.set(address, leases.instanceId);
      }
    }
    return seen;
  };

  for (const count of [2, 3]) {
    test(`${count} instances asking for all 4 keys hold disjoint sets that cover the keys, while they heartbeat`, async () => {
      try {
        const network = freshNetwork();
        const keys = keysFor(4);
        const instances = await Promise.all(
          Array.from({ length: count }, (_, i) => instance(`i${i}`, { network, addresses: keys, leaseMs: 1500 })),
        );
        await Promise.all(instances.map(({ leases }) => leases.start()));
        const holders = assertDisjoint(instances);
        expect([...holders.keys()].sort()).toEqual(keys);
        // The database agrees with every instance about who holds what.
        const rows = await instances[0]?.store.leases(network);
        expect(rows?.map((row) => [row.address, row.holder])).toEqual(
          keys.map((key) => [key, holders.get(key) as string]),
        );
        // Heartbeats racing each other for three lease lengths: renewals keep every key where it is.
        const end = Date.now() + 4500;
        while (Date.now() < end) {
          await Promise.all(instances.map(({ leases }) => leases.heartbeat()));
          expect(assertDisjoint(instances)).toEqual(holders);
          await Bun.sleep(25);
        }
        for (const { takeovers, lost } of instances) {
          expect(takeovers).toEqual([]); // free keys are no takeover
          expect(lost).toEqual([]);
        }
      } finally {
        await cleanup();
      }
    }, 30_000);
  }

  test("instances asking for half the keys each take half", async () => {
    try {
      const network = freshNetwork();
      const keys = keysFor(4);
      const instances = await Promise.all(
        ["a", "b"].map((id) => instance(id, { network, addresses: keys, want: 2, leaseMs: 1500 })),
      );
      await Promise.all(instances.map(({ leases }) => leases.start()));
      expect(instances.map(({ leases }) => leases.held().length)).toEqual([2, 2]);
      expect([...assertDisjoint(instances).keys()].sort()).toEqual(keys);
    } finally {
      await cleanup();
    }
  }, 30_000);

  test("an instance that stops heartbeating: its keys are taken by another after expiry, onTakeover once per key", async () => {
    try {
      const network = freshNetwork();
      const keys = keysFor(4);
      const leaseMs = 900;
      const dead = await instance("dead", { network, addresses: keys, leaseMs });
      const heir = await instance("heir", { network, addresses: keys, leaseMs });
      await dead.leases.start();
      await heir.leases.start();
      expect(dead.leases.held().sort()).toEqual(keys);
      expect(heir.leases.held()).toEqual([]);
      const rowsBefore = await heir.store.leases(network);
      await dead.leases.stop({ release: false }); // a crash: nothing released, nothing renewed

      const heldAt = new Map<string, number>();
      await until("the heir to hold every key", () => {
        for (const key of heir.leases.held()) if (!heldAt.has(key)) heldAt.set(key, Date.now());
        return heldAt.size === keys.length;
      });
      // Not before the dead instance's leases expired (the database's clock is this machine's).
      for (const row of rowsBefore) expect(heldAt.get(row.address) as number).toBeGreaterThanOrEqual(row.expiresAt);
      expect(heir.takeovers.sort()).toEqual(keys);
      // Renewals and further rounds resolve nothing again.
      for (let round = 0; round < 3; round++) await heir.leases.heartbeat();
      expect(heir.takeovers.length).toBe(keys.length);
      expect(dead.takeovers).toEqual([]);
      expect((await heir.store.leases(network)).every((row) => row.holder === "heir")).toBe(true);
    } finally {
      await cleanup();
    }
  }, 30_000);

  test("a takeover whose resolution fails leaves the key unused and is resolved again at the next heartbeat", async () => {
    try {
      const network = freshNetwork();
      const [key] = keysFor(1) as [string];
      const dead = await instance("dead", { network, addresses: [key], leaseMs: 600 });
      await dead.leases.start();
      await dead.leases.stop({ release: false });
      await database.exec(`UPDATE key_leases SET expires_at = 0 WHERE network = '${network}'`);
      let failures = 1;
      const heir = await instance("heir", {
        network,
        addresses: [key],
        leaseMs: 600,
        onTakeover: () => {
          if (failures-- > 0) throw new Error("receipts unavailable");
        },
      });
      await heir.leases.heartbeat();
      await until("the failed resolution", () => heir.takeovers.length === 1);
      await Bun.sleep(20);
      expect(heir.leases.holds(key)).toBe(false);
      await heir.leases.heartbeat();
      await until("the key", () => heir.leases.holds(key));
      expect(heir.takeovers).toEqual([key, key]);
    } finally {
      await cleanup();
    }
  }, 30_000);

  test("a holder whose lease was taken over learns it at its next renewal and stops using the key", async () => {
    try {
      const network = freshNetwork();
      const [key] = keysFor(1) as [string];
      const holder = await instance("holder", { network, addresses: [key], leaseMs: 60_000 });
      await holder.leases.heartbeat();
      expect(holder.leases.holds(key)).toBe(true);
      // The holder's lease ends early (a clock jump, or a heartbeat stuck longer than the lease): another takes it.
      await database.exec(`UPDATE key_leases SET expires_at = 0 WHERE network = '${network}'`);
      const thief = await instance("thief", { network, addresses: [key], leaseMs: 60_000 });
      await thief.leases.heartbeat();
      await until("the thief's resolution", () => thief.leases.holds(key));
      expect(thief.takeovers).toEqual([key]);
      await holder.leases.heartbeat();
      expect(holder.leases.holds(key)).toBe(false);
      expect(holder.lost).toEqual([[key, "stolen"]]);
      // And it does not take it back: the thief's lease is live.
      await holder.leases.heartbeat();
      expect(holder.leases.held()).toEqual([]);
      expect((await holder.store.leases(network)).map((row) => row.holder)).toEqual(["thief"]);
    } finally {
      await cleanup();
    }
  }, 30_000);

  test("a holder that cannot renew stops using the key before its lease expires; then another takes it", async () => {
    try {
      const network = freshNetwork();
      const [key] = keysFor(1) as [string];
      const leaseMs = 1200;
      const marginMs = 300;
      const cut = await instance("cut", { network, addresses: [key], leaseMs, marginMs });
      const other = await instance("other", { network, addresses: [key], leaseMs });
      await cut.leases.start();
      expect(cut.leases.holds(key)).toBe(true);
      const [row] = await other.store.leases(network);
      await cut.close(); // its database connection is gone: every renewal fails
      await until("the key given up", () => !cut.leases.holds(key));
      const gaveUpAt = Date.now();
      expect(gaveUpAt).toBeLessThan((row?.expiresAt as number) - marginMs / 2);
      // Nobody may take it before the lease the cut instance last wrote expires.
      await other.leases.heartbeat();
      if (Date.now() < (row?.expiresAt as number)) expect(other.leases.held()).toEqual([]);
      await until("the other instance to take it", async () => {
        await other.leases.heartbeat();
        return other.leases.holds(key);
      });
      expect(other.takeovers).toEqual([key]);
      await until("the cut instance's heartbeat to report it", () => cut.lost.length > 0);
      expect(cut.lost).toEqual([[key, "expired"]]);
    } finally {
      await cleanup();
    }
  }, 30_000);

  test("50 concurrent takes of one key from 5 connections: one winner", async () => {
    try {
      const network = freshNetwork();
      const [key] = keysFor(1) as [string];
      const connections = await Promise.all(Array.from({ length: 5 }, () => database.connect()));
      cleanups.push(async () => {
        for (const connection of connections) await connection.close();
      });
      const race = (prefix: string) =>
        Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            (connections[i % 5] as (typeof connections)[number]).store.take(network, key, `${prefix}${i}`, 60_000),
          ),
        );
      const first = await race("h");
      const winners = first.flatMap((lease, i) => (lease ? [`h${i}`] : []));
      expect(winners.length).toBe(1);
      expect(first.find(Boolean)?.takenFrom).toBeNull();
      expect((await connections[0]?.store.leases(network))?.map((row) => row.holder)).toEqual(winners);
      // The same race by 50 other holders for the expired lease: one takes it over, from the first winner.
      await database.exec(`UPDATE key_leases SET expires_at = 0 WHERE network = '${network}'`);
      const second = await race("g");
      const heirs = second.flatMap((lease, i) => (lease ? [`g${i}`] : []));
      expect(heirs.length).toBe(1);
      expect(second.find(Boolean)?.takenFrom).toBe(winners[0] as string);
      expect((await connections[0]?.store.leases(network))?.map((row) => row.holder)).toEqual(heirs);
    } finally {
      await cleanup();
    }
  }, 30_000);

  test("a restart with the same holder id takes its own leases at once, with no takeover; release frees them", async () => {
    try {
      const network = freshNetwork();
      const keys = keysFor(2);
      const first = await instance("single", { network, addresses: keys, leaseMs: 60_000 });
      await first.leases.start();
      await first.leases.stop({ release: false }); // crashed with live leases
      const again = await instance("single", { network, addresses: keys, leaseMs: 60_000 });
      await again.leases.start();
      expect(again.leases.held().sort()).toEqual(keys);
      expect(again.takeovers).toEqual([]);
      await again.leases.stop();
      expect(await again.store.leases(network)).toEqual([]);
      const other = await instance("other", { network, addresses: keys, leaseMs: 60_000 });
      await other.leases.start();
      expect(other.leases.held().sort()).toEqual(keys);
      expect(other.takeovers).toEqual([]); // released keys are free keys
    } finally {
      await cleanup();
    }
  }, 30_000);
}
