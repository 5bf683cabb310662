// The sweep over stuck funded approves (funded-approve-sweep.ts) on PostgreSQL, where it runs in every orphan sweep
// under the reconciliation lock: one instance's funding kernel on a real database (test/support/postgres.ts).
import { afterAll, test } from "bun:test";
import { createFundedApprovals } from "../../src/onboarding/funded-approvals";
import { createFundingStorePostgres } from "../../src/onboarding/funding-store-postgres";
import { createTestDatabase } from "../support/postgres";
import { postgresInstanceBase } from "../support/postgres-instance";
import { STUCK, SWEEP_BOUND_MS, sweepOverStuckApproves } from "./funded-approve-sweep";

const running: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const instance of running) await instance.stop();
});

test(`PostgreSQL: a sweep over ${STUCK} funded approves never mined ends within ${SWEEP_BOUND_MS / 1000} s; past the deadline they are abandoned and counted`, async () => {
  const base = await postgresInstanceBase(await createTestDatabase("funded_approve_sweep"), 1);
  running.push(base);
  const store = createFundingStorePostgres(base.db);
  const onboarding = createFundedApprovals({ store, networks: base.networks, deny: base.deny, logger: base.logger });
  const sql = base.db.$client;
  await sweepOverStuckApproves({
    store,
    reconcile: () => onboarding.reconcile(),
    statuses: async () =>
      (
        (await sql`SELECT status, count(*) AS n FROM funded_approvals GROUP BY status ORDER BY status`) as {
          status: string;
          n: number | string;
        }[]
      ).map((row) => ({ status: row.status, n: Number(row.n) })),
    setUpdatedAt: async (ids, at) => {
      for (const id of ids) await sql`UPDATE funded_approvals SET updated_at = ${at} WHERE id = ${id}`;
    },
    countedPayers: async () =>
      (await sql`SELECT address, reverts FROM deny_counters WHERE kind = 'payer'`) as {
        address: string;
        reverts: number;
      }[],
  });
}, 120_000);
