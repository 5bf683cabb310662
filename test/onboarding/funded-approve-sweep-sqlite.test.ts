// The sweep over stuck funded approves (funded-approve-sweep.ts) on the service's SQLite file, and the dashboard's lost figure.
import { afterAll, expect, test } from "bun:test";
import { DASHBOARD_KEY } from "../support/dashboard";
import { trackServices } from "../support/service";
import { STUCK, SWEEP_BOUND_MS, sweepOverStuckApproves } from "./funded-approve-sweep";

const services = trackServices();
afterAll(() => services.stopAll());

test(`SQLite: a sweep over ${STUCK} funded approves never mined ends within ${SWEEP_BOUND_MS / 1000} s; past the deadline they are abandoned, counted and shown as lost`, async () => {
  const relay = services.start({ dashboardApiKey: DASHBOARD_KEY });
  const sql = relay.db.$client;
  await sweepOverStuckApproves({
    store: relay.services.stores.fundedApprovals,
    reconcile: () => relay.services.reconcile(),
    statuses: async () =>
      sql
        .query<{ status: string; n: number }, []>(
          "SELECT status, count(*) AS n FROM funded_approvals GROUP BY status ORDER BY status",
        )
        .all(),
    setUpdatedAt: async (ids, at) => {
      for (const id of ids) sql.query("UPDATE funded_approvals SET updated_at = ? WHERE id = ?").run(at, id);
    },
    countedPayers: async () =>
      sql
        .query<{ address: string; reverts: number }, []>(
          "SELECT address, reverts FROM deny_counters WHERE kind = 'payer'",
        )
        .all(),
  });
  const summary = await relay.get("/dashboard/api/summary?range=hour&network=bsc", {
    "x-dashboard-api-key": DASHBOARD_KEY,
  });
  expect(summary.body.onboarding).toMatchObject([{ network: "bsc", fundings: STUCK, lost: { count: 10, wei: "10" } }]);
}, 120_000);
