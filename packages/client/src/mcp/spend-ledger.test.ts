import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpendLedger } from "./spend-ledger.js";

const fileIn = () => join(mkdtempSync(join(tmpdir(), "relay402-ledger-")), "spent.jsonl");
const payment = (key: string, amount: bigint) => ({
  key,
  network: "bsc",
  token: "0xT",
  to: "0xP",
  amount: `${amount}`,
  at: 0,
});

describe("SpendLedger", () => {
  test("reservations from several processes on one file never pass the total together", async () => {
    const file = fileIn();
    // Each process starts at the same instant and reserves one unit at a time, so their reads and appends interleave.
    const script = `
      const { SpendLedger } = await import(${JSON.stringify(join(import.meta.dir, "spend-ledger.ts"))});
      const ledger = new SpendLedger(${JSON.stringify(file)});
      const [id, start] = process.argv.slice(-2);
      await Bun.sleep(Number(start) - Date.now());
      for (let i = 0; i < 40; i++) {
        await ledger.reserve({ key: id + i, network: "bsc", token: "0xT", to: "0xP", amount: "1", at: 0 }, { total: 60n });
      }
    `;
    const start = Date.now() + 400;
    const children = [0, 1, 2].map((id) => Bun.spawn([process.execPath, "-e", script, `p${id}-`, `${start}`]));
    try {
      expect(await Promise.all(children.map((child) => child.exited))).toEqual([0, 0, 0]);
    } finally {
      for (const child of children) if (child.exitCode === null) process.kill(child.pid);
    }
    const entries = [...new SpendLedger(file).entries().values()];
    expect(entries).toHaveLength(60);
  });

  test("a key is counted once; a released one counts nothing and can be reserved again", async () => {
    const ledger = new SpendLedger(fileIn());
    expect(await ledger.reserve(payment("a", 5n), { total: 9n })).toEqual({ kind: "new" });
    expect(await ledger.reserve(payment("a", 5n), { total: 9n })).toMatchObject({ kind: "existing" });
    expect(await ledger.reserve(payment("b", 5n), { total: 9n })).toMatchObject({ kind: "refused", spent: 5n });
    await ledger.settle({ ...payment("a", 5n), state: "released" });
    expect(await ledger.reserve(payment("b", 5n), { total: 9n })).toEqual({ kind: "new" });
  });

  test("the day window counts the last 24 hours only; per payment is checked alone", async () => {
    const ledger = new SpendLedger(fileIn());
    const day = 24 * 60 * 60 * 1000;
    await ledger.reserve(payment("old", 8n), {}, 1_000);
    expect(await ledger.reserve(payment("new", 8n), { perDay: 10n }, 1_000 + day + 1)).toEqual({ kind: "new" });
    expect(await ledger.reserve(payment("more", 3n), { perDay: 10n }, 1_000 + day + 2)).toMatchObject({
      kind: "refused",
      limit: "perDay",
      spent: 8n,
    });
    expect(await ledger.reserve(payment("big", 4n), { perPayment: 3n })).toMatchObject({ limit: "perPayment" });
  });

  test("a lock left by a dead process is taken over once stale", async () => {
    const file = fileIn();
    writeFileSync(`${file}.lock`, "");
    const { utimesSync } = await import("node:fs");
    utimesSync(`${file}.lock`, new Date(0), new Date(0));
    expect(await new SpendLedger(file).reserve(payment("a", 1n), {})).toEqual({ kind: "new" });
  });
});
