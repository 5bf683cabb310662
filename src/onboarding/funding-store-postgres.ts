import type { SQL } from "bun";
import type { PgDb } from "../db/postgres/open";
import {
  COST_COLUMNS,
  type CostRow,
  claimValues,
  costValues,
  type FundedApproval,
  type FundingClaim,
  type FundingStore,
  keptOf,
  overBudget,
  spentOf,
} from "./funding-store";

/**
 * The key of the transaction-scoped advisory lock every claim takes: the budget read and the insert of one
 * network's claims then run one at a time across instances, so concurrent claims cannot together pass the
 * budget. ("fapv" in ASCII; no other lock of this database uses it.)
 */
const BUDGET_LOCK = 0x66617076;

const COLUMNS = `id, network, payer, nonce, token, spender, approve_raw AS "approveRaw", approve_hash AS "approveHash",
  funding_wei AS "fundingWei", funding_tx_hash AS "fundingTxHash", funding_raw_tx AS "fundingRawTx",
  funding_fee_wei AS "fundingFeeWei", approve_cost_wei AS "approveCostWei", kept_wei AS "keptWei", status, error,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The pool, or the claim's transaction on it. */
type Sql = Pick<SQL, "unsafe">;

type Row = Omit<FundedApproval, "id" | "nonce"> & { id: number | string; nonce: number | string };
const rowOf = (row: Row | undefined): FundedApproval | undefined =>
  row && ({ ...row, id: Number(row.id), nonce: Number(row.nonce) } as FundedApproval);

/** Funded approvals on PostgreSQL, for several instances on one database: the rows of funding-store.ts. */
export function createFundingStorePostgres(db: PgDb): FundingStore {
  const client = db.$client;
  const now = () => new Date().toISOString();
  const lower = (address: string) => address.toLowerCase();
  const find = async (network: string, payer: string, nonce: number) => {
    const [row] = (await client.unsafe(
      `SELECT ${COLUMNS} FROM funded_approvals WHERE network = $1 AND payer = $2 AND nonce = $3`,
      [network, lower(payer), nonce],
    )) as Row[];
    return rowOf(row);
  };
  const openFunding = async (sql: Sql, network: string, payer: string, token: string) => {
    const [row] = (await sql.unsafe(
      `SELECT ${COLUMNS} FROM funded_approvals WHERE network = $1 AND payer = $2 AND token = $3
        AND funding_wei != '0' AND status != 'used' LIMIT 1`,
      [network, lower(payer), lower(token)],
    )) as Row[];
    return rowOf(row);
  };
  return {
    find,
    openFunding: (network, payer, token) => openFunding(client, network, payer, token),
    claim: (record, budget, payerCap) =>
      client.begin(async (tx): Promise<FundingClaim> => {
        await tx`SELECT pg_advisory_xact_lock(${BUDGET_LOCK})`;
        const [existing] = (await tx.unsafe(
          `SELECT ${COLUMNS} FROM funded_approvals WHERE network = $1 AND payer = $2 AND nonce = $3`,
          [record.network, lower(record.payer), record.nonce],
        )) as Row[];
        if (existing) return { kind: "exists", record: rowOf(existing) as FundedApproval };
        // Under the lock too: two claims of one payer at other nonces would otherwise both find no open funding.
        const funded =
          BigInt(record.fundingWei) > 0n
            ? await openFunding(tx, record.network, record.payer, record.token)
            : undefined;
        if (funded) return { kind: "already_funded", record: funded };
        const spent = spentOf(
          (await tx.unsafe(
            `SELECT ${COST_COLUMNS} FROM funded_approvals WHERE network = $1 AND created_at >= $2 AND funding_wei != '0'`,
            [record.network, budget.since],
          )) as CostRow[],
        );
        if (overBudget(record, spent, budget)) return { kind: "over_budget", spent };
        if (payerCap) {
          const counted = keptOf(
            (await tx.unsafe(
              `SELECT ${COST_COLUMNS} FROM funded_approvals WHERE network = $1 AND payer = $2 AND created_at >= $3
                AND funding_wei != '0'`,
              [record.network, lower(record.payer), payerCap.since],
            )) as CostRow[],
          );
          if (overBudget(record, counted, payerCap)) return { kind: "payer_capped", counted };
        }
        const [created] = (await tx.unsafe(
          `INSERT INTO funded_approvals (network, payer, nonce, token, spender, approve_raw, approve_hash, funding_wei,
            status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $9)
            RETURNING ${COLUMNS}`,
          claimValues(record, now()),
        )) as Row[];
        return { kind: "created", record: rowOf(created) as FundedApproval };
      }),
    async fundingSent(id, txHash, rawTx) {
      const updated = await client`UPDATE funded_approvals SET status = 'funding_sent', funding_tx_hash = ${txHash},
        funding_raw_tx = ${rawTx}, updated_at = ${now()} WHERE id = ${id} AND status = 'pending' RETURNING id`;
      if (updated.length !== 1) throw new Error(`funded approval ${id} is no longer pending; its funding is not sent`);
    },
    async recordCosts(id, costs) {
      const [fee, approveCost, kept] = costValues(costs);
      await client`UPDATE funded_approvals SET funding_fee_wei = COALESCE(${fee}, funding_fee_wei),
        approve_cost_wei = COALESCE(${approveCost}, approve_cost_wei), kept_wei = COALESCE(${kept}, kept_wei),
        updated_at = ${now()} WHERE id = ${id}`;
    },
    async fundingReplaced(id, txHash) {
      await client`UPDATE funded_approvals SET funding_tx_hash = ${txHash}, updated_at = ${now()}
        WHERE id = ${id} AND status = 'funding_sent'`;
    },
    async setStatus(id, status, error) {
      await client`UPDATE funded_approvals SET status = ${status}, error = ${error ?? null}, updated_at = ${now()}
        WHERE id = ${id}`;
    },
    async markUsed(network, payer, token) {
      await client`UPDATE funded_approvals SET status = 'used', updated_at = ${now()} WHERE network = ${network}
        AND payer = ${lower(payer)} AND token = ${lower(token)} AND status = 'approved'`;
    },
    async release(id) {
      await client`DELETE FROM funded_approvals WHERE id = ${id} AND status = 'pending'`;
    },
    async unfinished() {
      const rows = (await client.unsafe(
        `SELECT ${COLUMNS} FROM funded_approvals WHERE status IN ('pending', 'funding_sent', 'approve_sent') ORDER BY id`,
      )) as Row[];
      return rows.map((row) => rowOf(row) as FundedApproval);
    },
  };
}
