// The dashboard's JSON API against real payments on the devnet, on a SQLite file and on PostgreSQL: its figures
// equal what the chain's receipts say (gas, sponsorship) and what was paid (counts, volume, fees); recent
// settlements link to the network's explorer; the queries use the created_at indexes (PostgreSQL's plan, SQLite's).
import { afterAll, describe, expect, test } from "bun:test";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { MERCHANT, PAYER, TOKEN } from "../../src/examples";
import { presetOf } from "../../src/networks";
import { nativeBalance } from "../onboarding/funded-approve-support";
import { costOf, divertedFundedApprove, paidWithFundedApprove } from "../onboarding/funded-payments";
import {
  DASHBOARD_KEY,
  type Expected,
  expectFigures,
  postgresService,
  settleKnownPayments,
} from "../support/dashboard";
import { getTestDevnet } from "../support/devnet";
import { createTestDatabase } from "../support/postgres";
import { startTestService } from "../support/service";

const keyed = { "x-dashboard-api-key": DASHBOARD_KEY };

type Service = {
  post: (path: string, body: unknown) => Promise<{ status: number; body: any }>;
  get: (path: string, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;
};

/** The plan of one of the dashboard store's queries. */
type Explain = (query: { text: string; params: unknown[] }) => Promise<string>;

function checks(label: string, service: () => Service, explain: Explain) {
  let expected: Expected[] = [];

  test(`${label}: summary figures equal the chain's receipts and what was paid`, async () => {
    expected = await settleKnownPayments(service().post);
    for (const range of ["hour", "day", "month"]) {
      const summary = await service().get(`/dashboard/api/summary?range=${range}`, keyed);
      expect(summary.status).toBe(200);
      expectFigures(summary.body.flows, expected);
      const settled = expected.reduce((sum, each) => sum + each.success, 0);
      expect(summary.body.totals.settlements).toBe(settled);
      expect(summary.body.series.reduce((sum: number, point: any) => sum + point.success, 0)).toBe(settled);
    }
    // No range: the last day; no filter: every flow (a missing optional value is never filled in).
    const plain = await service().get("/dashboard/api/summary", keyed);
    expect(plain.body.range).toBe("day");
    expectFigures(plain.body.flows, expected);
    const onlyBase = await service().get("/api/v1/dashboard/api/summary?range=hour&network=base&flow=x402", keyed);
    expectFigures(
      onlyBase.body.flows,
      expected.filter((each) => each.network === "base" && each.flow === "x402"),
    );
  }, 120_000);

  test(`${label}: recent settlements filter and link each transaction to the network's explorer`, async () => {
    const all = await service().get("/dashboard/api/settlements?limit=200", keyed);
    expect(all.status).toBe(200);
    const hashes = expected.flatMap((each) => each.txHashes);
    expect(all.body.settlements.map((row: any) => row.txHash).sort()).toEqual([...hashes].sort());
    // Each token by its configured symbol (GET /config says which).
    const { networks } = (await service().get("/config")).body;
    for (const row of all.body.settlements) {
      expect(row.explorerUrl).toBe(presetOf(row.network).explorer.tx.replace("{hash}", row.txHash));
      expect(row.status).toBe("success");
      const token = networks[row.network].tokens.find(
        (each: any) => each.address.toLowerCase() === row.token.toLowerCase(),
      );
      expect(row.symbol).toBe(token.symbol);
    }
    const eoaBsc = expected.find((each) => each.network === "bsc" && each.flow === "eoa") as Expected;
    const filtered = await service().get("/dashboard/api/settlements?network=bsc&flow=eoa&status=success", keyed);
    expect(filtered.body.settlements.map((row: any) => row.txHash)).toEqual(eoaBsc.txHashes);
    expect(BigInt(filtered.body.settlements[0].gasWei)).toBe(eoaBsc.gasWei);
    const payer = filtered.body.settlements[0].payer;
    const byPayer = await service().get(`/dashboard/api/settlements?payer=${payer.toLowerCase()}`, keyed);
    expect(byPayer.body.settlements.map((row: any) => row.txHash)).toEqual(eoaBsc.txHashes);
    const paged = await service().get("/dashboard/api/settlements?limit=2", keyed);
    expect(paged.body.settlements).toHaveLength(2);
    const next = await service().get(`/dashboard/api/settlements?limit=200&before=${paged.body.next}`, keyed);
    expect(next.body.settlements.length).toBe(hashes.length - 2);
    const tooMany = await service().get("/dashboard/api/settlements?limit=201", keyed);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details.field).toBe("limit");
  });

  test(`${label}: attention lists each executor with its balance and threshold, and each paymaster's deposit`, async () => {
    const attention = await service().get("/dashboard/api/attention", keyed);
    expect(attention.status).toBe(200);
    expect(attention.body.executors.length).toBeGreaterThan(0);
    for (const executor of attention.body.executors) {
      expect(BigInt(executor.balanceWei)).toBeGreaterThan(0n);
      expect(executor.alertBelowWei).toBe((10n ** 16n).toString());
      expect(executor.low).toBe(false);
    }
    const bsc = attention.body.paymasters.find((each: any) => each.network === "bsc");
    const sponsored = expected.find((each) => each.network === "bsc" && each.flow === "smart-wallet") as Expected;
    expect(bsc.averageSponsoredWei).toBe(sponsored.sponsoredWei.toString());
    expect(BigInt(bsc.coversUserOps)).toBe(BigInt(bsc.depositWei) / sponsored.sponsoredWei);
    expect(attention.body.stuck).toEqual([]);
  });

  test(`${label}: the recent settlements, a range's figures and the fundings read the created_at indexes`, async () => {
    const store = (service() as any).services.stores.dashboard;
    for (const table of ["eoa_settlements", "x402_settlements", "swap_settlements", "issued_user_ops"]) {
      expect(await explain(store.rowsQuery({}, 50))).toContain(`${table}_created`);
      const since = new Date(Date.now() - 3_600_000).toISOString();
      expect(await explain(store.rowsQuery({ since }))).toContain(`${table}_created`);
    }
    expect(await explain(store.fundingsQuery())).toContain("funded_approvals_created");
  });

  test(`${label}: onboarding shows what the funded approves sent and what walked away, as the payers received it`, async () => {
    const paidWith = await paidWithFundedApprove(service().post, "bsc");
    const divertedBy = await divertedFundedApprove(service().post, "bsc");
    const [paid, diverted] = [paidWith.received, divertedBy.received];
    // What each funding's own transaction cost, and what the paid payer kept (it held nothing before), per the chain.
    const store = (service() as any).services.stores.fundedApprovals;
    const fundingGasOf = async (payer: string) =>
      costOf("bsc", (await store.find("bsc", payer, 0)).fundingTxHash as `0x${string}`);
    const fundingGas = (await fundingGasOf(paidWith.payer.address)) + (await fundingGasOf(divertedBy.payer.address));
    const paidKept = await nativeBalance("bsc", paidWith.payer.address);
    const kept = paidKept + diverted;
    const { networks } = (await service().get("/config")).body;
    for (const range of ["hour", "day", "month"]) {
      const summary = (await service().get(`/dashboard/api/summary?range=${range}&network=bsc`, keyed)).body;
      expect(summary.onboarding).toEqual([
        {
          network: "bsc",
          enabled: networks.bsc.fundedApprove.enabled,
          payersFunded: 2,
          fundings: 2,
          fundingWei: (paid + diverted).toString(),
          diverted: { count: 1, wei: diverted.toString() },
          lost: { count: 1, wei: diverted.toString() },
          fundingGas: { wei: fundingGas.toString(), known: 2, unknown: 0 },
          approveGas: { wei: (paid - paidKept).toString(), known: 2, unknown: 0 },
          kept: { wei: kept.toString(), known: 2, unknown: 0 },
          payersKept: [
            { payer: divertedBy.payer.address, fundings: 1, keptWei: diverted.toString() },
            { payer: paidWith.payer.address, fundings: 1, keptWei: paidKept.toString() },
          ],
          // The default budget (the devnet's config sets none): every funding of this test is in its window, with its gas.
          budget: {
            wei: (10n ** 16n).toString(),
            windowSeconds: 3_600,
            spentWei: (paid + diverted + fundingGas).toString(),
          },
        },
      ]);
    }
    // Base funded nobody: it shows its budget untouched; the network filter leaves bsc out.
    const base = (await service().get("/dashboard/api/summary?network=base", keyed)).body.onboarding;
    expect(base).toMatchObject([{ network: "base", payersFunded: 0, fundingWei: "0", budget: { spentWei: "0" } }]);
  }, 60_000);
}

describe("SQLite", () => {
  const service = startTestService({ dashboardApiKey: DASHBOARD_KEY });
  afterAll(() => service.stop());
  checks(
    "SQLite",
    () => service,
    async (query) => {
      const plan = service.db.$client
        .query(`EXPLAIN QUERY PLAN ${query.text}`)
        .all(...(query.params as string[])) as any[];
      return plan.map((row) => row.detail).join("\n");
    },
  );
});

describe("SQLite: a row from before receipt figures were recorded", () => {
  // The explorer pattern of the config overrides the preset's.
  const service = startTestService({
    dashboardApiKey: DASHBOARD_KEY,
    dashboard: { explorerTxUrl: { bsc: "https://explorer.example/bsc/tx/{hash}" } },
  } as never);
  afterAll(() => service.stop());

  test("shows its gas as unknown, never as 0", async () => {
    const now = new Date().toISOString();
    service.db.$client
      .query(
        "INSERT INTO eoa_settlements (network, payer, nonce, token, recipient, amount, valid_after, valid_before, signature, status, tx_hash, created_at, updated_at) VALUES ('bsc', ?, ?, ?, ?, '5', 0, 0, '0x', 'success', ?, ?, ?)",
      )
      .run(PAYER, `0x${"01".repeat(32)}`, TOKEN, MERCHANT, `0x${"02".repeat(32)}`, now, now);
    const [row] = (await service.get("/dashboard/api/settlements", keyed)).body.settlements;
    expect(row).toMatchObject({ gasWei: "unknown", sponsoredWei: null, latencyMs: null, amount: "5" });
    expect(row.explorerUrl).toBe(`https://explorer.example/bsc/tx/0x${"02".repeat(32)}`);
    const [figures] = (await service.get("/dashboard/api/summary?range=hour", keyed)).body.flows;
    expect(figures.gas).toEqual({ wei: "0", known: 0, unknown: 1 });
    expect(figures.latencyMs).toBeNull();
    expect((await service.get("/dashboard/api/summary", keyed)).body.totals.unknownGas).toBe(1);
  });
});

describe("PostgreSQL", () => {
  let service: Awaited<ReturnType<typeof postgresService>>;
  afterAll(() => service?.stop());
  let url = "";
  let config: ReturnType<typeof configFromManifest>;
  test("starts on its own database", async () => {
    config = configFromManifest(getTestDevnet().devnet.manifest, {
      dashboardApiKey: DASHBOARD_KEY,
      rateLimitPerMinute: 1_000_000,
      logRequests: false,
      databasePath: ":memory:",
    });
    url = await createTestDatabase("dashboard");
    service = await postgresService(config, url);
  });
  checks(
    "PostgreSQL",
    () => service,
    async (query) => {
      const plan = await service.db.$client.begin(async (tx) => {
        // A few rows: without this the planner reads the tables whole, which says nothing about a million rows.
        await tx.unsafe("SET LOCAL enable_seqscan = off");
        return tx.unsafe(`EXPLAIN ${query.text}`, query.params as never[]);
      });
      return (plan as any[]).map((row) => row["QUERY PLAN"]).join("\n");
    },
  );

  test("another instance on the same database shows the same figures", async () => {
    const other = await postgresService(config, url);
    try {
      for (const path of ["/dashboard/api/summary?range=hour", "/dashboard/api/settlements"]) {
        const [mine, theirs] = await Promise.all([service.get(path, keyed), other.get(path, keyed)]);
        const { from: _a, to: _b, series: _c, ...figures } = mine.body;
        const { from: _d, to: _e, series: _f, ...same } = theirs.body;
        expect(same).toEqual(figures);
      }
    } finally {
      await other.stop();
    }
  });

  test("a row without receipt figures counts as unknown gas on PostgreSQL too", async () => {
    const now = new Date().toISOString();
    await service.db.$client.unsafe(
      "INSERT INTO eoa_settlements (network, payer, nonce, token, recipient, amount, valid_after, valid_before, signature, status, tx_hash, created_at, updated_at) VALUES ('bsc', $1, $2, $3, $4, '5', 0, 0, '0x', 'success', $5, $6, $6)",
      [PAYER, `0x${"01".repeat(32)}`, TOKEN, MERCHANT, `0x${"02".repeat(32)}`, now],
    );
    const summary = (await service.get("/dashboard/api/summary?range=hour", keyed)).body;
    expect(summary.flows.find((each: any) => each.network === "bsc" && each.flow === "eoa").gas.unknown).toBe(1);
    const [row] = (await service.get("/dashboard/api/settlements?limit=1", keyed)).body.settlements;
    expect(row).toMatchObject({ gasWei: "unknown", amount: "5" });
  });
});
