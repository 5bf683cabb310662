// The dashboard's queries on a million settlement rows: seeds 10^4, 10^5 and 10^6 rows (spread over 30 days and
// the flows' tables, with receipt figures) on a SQLite file and on a PostgreSQL of its own, builds the hourly
// rollups once (as a service does at its start, in the background; that time is printed too), and prints the p95 of
// each of the API's database reads with the figures computed from them (no chain: balances are one RPC call).
//   bun run bench:dashboard [-- --sizes 10000,100000,1000000 --runs 7]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rangeFigures } from "../../src/dashboard/dashboard";
import { type DashboardStore, dashboardStore } from "../../src/dashboard/dashboard-store";
import { percentile, RANGES } from "../../src/dashboard/figures";
import { rangeGroups, refreshRollups } from "../../src/dashboard/rollups";
import { openDatabase } from "../../src/db/open";
import { openPostgres } from "../../src/db/postgres/open";
import { startPostgres } from "../postgres/start";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? (args[at + 1] ?? fallback) : fallback;
};
const SIZES = option("sizes", "10000,100000,1000000").split(",").map(Number);
const RUNS = Number(option("runs", "7"));
const DAY = 86_400_000;
const now = Date.now();

/** Row i of n: its table, time (spread over 30 days, newest last) and figures. */
function seedRow(i: number, n: number) {
  const created = new Date(now - 30 * DAY + Math.floor(((i + 0.5) * 30 * DAY) / n)).toISOString();
  const mined = new Date(Date.parse(created) + 300 + (i % 700)).toISOString();
  const status = i % 50 === 0 ? "reverted" : "success";
  const network = i % 2 === 0 ? "bsc" : "base";
  const payer = `0x${(i % 5000).toString(16).padStart(40, "0")}`;
  return { created, mined, status, network, payer, amount: (10n ** 24n + BigInt(i)).toString() };
}

const kindOf = (i: number) => (i % 10 < 7 ? "eoa" : i % 10 < 8 ? "x402" : i % 10 < 9 ? "userop" : "swap");

const SQL = {
  eoa: "INSERT INTO eoa_settlements (network, payer, nonce, token, recipient, amount, valid_after, valid_before, signature, status, tx_hash, created_at, updated_at, gas_used, effective_gas_price, sent_at, mined_at) VALUES (?, ?, ?, '0x55d398326f99059ff775485246999027b3197955', '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc', ?, 0, 0, '0x', ?, ?, ?, ?, '61234', '1000000000', ?, ?)",
  x402: "INSERT INTO x402_settlements (network, contract, payer, nonce, recipient, amount, valid_after, valid_before, signature, status, tx_hash, created_at, updated_at, token, gas_used, effective_gas_price, sent_at, mined_at) VALUES (?, '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', ?, ?, '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc', ?, 0, 0, '0x', ?, ?, ?, ?, '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', '58000', '1000000', ?, ?)",
  swap: "INSERT INTO swap_settlements (network, payer, nonce, sell_token, buy_token, sell_amount, min_buy_amount, recipient, fee, valid_after, valid_before, signature, status, tx_hash, created_at, updated_at, gas_used, effective_gas_price, sent_at, mined_at) VALUES (?, ?, ?, '0x55d398326f99059ff775485246999027b3197955', '0xbb4cdb9cbd36b01bd1cbaebf2de08d9173bc095c', ?, '1', '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc', '1000', 0, 0, '0x', ?, ?, ?, ?, '150000', '1000000000', ?, ?)",
  userop:
    "INSERT INTO issued_user_ops (user_op_hash, network, kind, sender, owner, user_op, context, status, tx_hash, expires_at, created_at, updated_at, actual_gas_cost, actual_gas_used, sent_at, mined_at) VALUES (?, ?, 'payment', ?, ?, '{}', ?, ?, ?, 0, ?, ?, '98000000000000', '98000', ?, ?)",
};

/** The values of row i for its table's statement. */
function valuesOf(i: number, n: number): { kind: keyof typeof SQL; values: (string | number)[] } {
  const r = seedRow(i, n);
  const hash = `0x${i.toString(16).padStart(64, "0")}`;
  const kind = kindOf(i) as keyof typeof SQL;
  if (kind === "userop") {
    const context = JSON.stringify({
      token: "0x55d398326f99059ff775485246999027b3197955",
      totalAmount: r.amount,
      feeAmount: "10000",
    });
    const status = r.status === "success" ? "success" : "failed";
    return {
      kind,
      values: [hash, r.network, r.payer, r.payer, context, status, hash, r.created, r.created, r.created, r.mined],
    };
  }
  return {
    kind,
    values: [r.network, r.payer, hash, r.amount, r.status, hash, r.created, r.created, r.created, r.mined],
  };
}

async function seedSqlite(path: string, n: number) {
  const db = openDatabase(path);
  const statements = Object.fromEntries(Object.entries(SQL).map(([kind, text]) => [kind, db.$client.prepare(text)]));
  db.$client.transaction(() => {
    for (let i = 0; i < n; i++) {
      const { kind, values } = valuesOf(i, n);
      statements[kind]?.run(...values);
    }
  })();
  db.$client.exec("ANALYZE");
  return { store: dashboardStore.sqlite(db), close: async () => db.$client.close() };
}

async function seedPostgres(url: string, n: number) {
  const db = await openPostgres(url);
  const numbered = (text: string) => {
    let k = 0;
    return text.replace(/\?/g, () => `$${++k}`);
  };
  for (let start = 0; start < n; start += 5_000) {
    await db.$client.begin(async (tx) => {
      for (let i = start; i < Math.min(n, start + 5_000); i++) {
        const { kind, values } = valuesOf(i, n);
        await tx.unsafe(numbered(SQL[kind]), values);
      }
    });
  }
  await db.$client.unsafe("ANALYZE");
  return { store: (await dashboardStore.postgres())(db), close: () => db.$client.close() };
}

/** Each API query's database read and the figures computed from it, as the routes run them. */
function queries(store: DashboardStore): Record<string, () => Promise<unknown>> {
  const since = (ms: number) => new Date(Date.now() - ms).toISOString();
  const summary = (range: keyof typeof RANGES) => () => rangeFigures(store, range, {}, Date.now());
  return {
    "summary?range=hour": summary("hour"),
    "summary?range=day": summary("day"),
    "summary?range=month": summary("month"),
    "settlements (newest 50)": () => store.rows({}, 50),
    "settlements?network=bsc&flow=eoa&status=failed": () =>
      store.rows({ network: "bsc", flow: "eoa", status: "failed" }, 50),
    "settlements?payer=…": () => store.rows({ payer: `0x${(42).toString(16).padStart(40, "0")}` }, 50),
    "rollups refresh (up to date)": () => refreshRollups(store, Date.now()),
    "attention (database part)": () =>
      Promise.all([
        store.rows({ since: since(RANGES.day.ms) }),
        refreshRollups(store, Date.now()).then(() =>
          rangeGroups(store, Date.now() - RANGES.month.ms, Date.now(), { sources: ["issued_user_ops"] }),
        ),
        store.leases(),
        store.denied(0, 50),
        store.rows({ status: "pending", before: since(300_000) }, 50),
      ]),
  };
}

async function measure(label: string, store: DashboardStore, n: number) {
  const runs = n >= 1_000_000 ? Math.min(RUNS, 3) : RUNS;
  const start = performance.now();
  await refreshRollups(store, Date.now());
  console.log(
    `| ${label} | ${n.toLocaleString("en")} | rollups: first build (once, in the background) | ${(performance.now() - start).toFixed(1)} ms |`,
  );
  for (const [name, query] of Object.entries(queries(store))) {
    const times: number[] = [];
    for (let run = 0; run < runs; run++) {
      const start = performance.now();
      await query();
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    console.log(`| ${label} | ${n.toLocaleString("en")} | ${name} | ${percentile(times, 95).toFixed(1)} ms |`);
  }
}

const postgres = await startPostgres({ quiet: true });
const dir = mkdtempSync(join(tmpdir(), "relay402-bench-dashboard-"));
try {
  console.log(`p95 of ${RUNS} runs (3 at 10^6)\n\n| database | rows | query | p95 |\n|---|---|---|---|`);
  for (const n of SIZES) {
    const sqlite = await seedSqlite(join(dir, `${n}.sqlite`), n);
    await measure("SQLite", sqlite.store, n);
    await sqlite.close();
    const pg = await seedPostgres(await postgres.createDatabase(`dashboard_${n}`), n);
    await measure("PostgreSQL", pg.store, n);
    await pg.close();
  }
} finally {
  await postgres.stop();
  rmSync(dir, { recursive: true, force: true });
}
