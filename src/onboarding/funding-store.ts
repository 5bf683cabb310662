import type { FundedApproval } from "../db/onboarding-schema";
import type { Db } from "../db/open";

export type { FundedApproval };
export type FundedApprovalStatus = FundedApproval["status"];

/** What a claim writes; the journal columns come later. */
export type NewFundedApproval = Pick<
  FundedApproval,
  "network" | "payer" | "nonce" | "token" | "spender" | "approveRaw" | "approveHash" | "fundingWei"
>;

export type FundingClaim =
  | { kind: "created"; record: FundedApproval }
  /** The payer's nonce already has a record (this approve's, or another transaction of the same nonce). */
  | { kind: "exists"; record: FundedApproval }
  /** The network's fundings of the window plus this one would pass the budget: nothing was written. */
  | { kind: "over_budget"; spent: bigint }
  /** What the payer kept in its window plus this whole funding would pass its cap: nothing was written. */
  | { kind: "payer_capped"; counted: bigint }
  /** A funding record needs funding while the payer has an open one of the token (`openFunding`): nothing written. */
  | { kind: "already_funded"; record: FundedApproval };

/** A bound on the sum of some fundings created since `since`. */
export type FundingLimit = { wei: bigint; since: string };

/** What a funding really cost, recorded as each transaction is mined (each field written once it is known). */
export type FundingCosts = { fundingFeeWei?: bigint; approveCostWei?: bigint; keptWei?: bigint };

/**
 * Where funded approvals are remembered, as an async port: SQLite (this file) or PostgreSQL
 * (funding-store-postgres.ts), the same rows. The claim is the one place the budget is enforced, so the budget
 * read and the insert are one transaction there.
 */
export type FundingStore = {
  find(network: string, payer: string, nonce: number): Promise<FundedApproval | undefined>;
  /**
   * A record of this payer and token whose funding was not (yet) turned into a paid payment: any funded record
   * except one marked `used`. While there is one, the payer is not funded again for the token.
   */
  openFunding(network: string, payer: string, token: string): Promise<FundedApproval | undefined>;
  /**
   * Inserts a pending record when the payer's nonce has none, the payer has no open funding of the token (when this
   * one needs funding), the budget allows its funding and (when given) so does the payer's cap on what it kept: all
   * read in the transaction that inserts, so racing claims of one payer cannot both fund it.
   */
  claim(record: NewFundedApproval, budget: FundingLimit, payerCap?: FundingLimit): Promise<FundingClaim>;
  /** Writes the costs known so far (a field left out keeps its value). */
  recordCosts(id: number, costs: FundingCosts): Promise<void>;
  /** The journal write before the funding's broadcast; throws when the record is no longer pending. */
  fundingSent(id: number, txHash: string, rawTx: string): Promise<void>;
  /** A fee-bumped replacement of the funding, journaled before its broadcast: the hash a restart looks for. */
  fundingReplaced(id: number, txHash: string): Promise<void>;
  setStatus(id: number, status: FundedApprovalStatus, error?: string): Promise<void>;
  /** The payer's approved records of the token are marked used (its allowance paid a payment). */
  markUsed(network: string, payer: string, token: string): Promise<void>;
  /** Drops a record whose funding was never signed, so the approve can be funded again. */
  release(id: number): Promise<void>;
  /** Records a previous process left before their approve's outcome (reconciled at start). */
  unfinished(): Promise<FundedApproval[]>;
};

export const UNFINISHED: readonly FundedApprovalStatus[] = ["pending", "funding_sent", "approve_sent"];

/**
 * The claim's budget rule, the same on both databases: a funding that takes the window's sum past the budget (the
 * payer's cap is the same rule over what it kept).
 */
export const overBudget = (record: NewFundedApproval, spent: bigint, budget: { wei: bigint }) =>
  BigInt(record.fundingWei) > 0n && spent + BigInt(record.fundingWei) > budget.wei;

/** A funding's cost row as both stores read it for the claim's rules. */
export type CostRow = { fundingWei: string; fundingFeeWei: string | null; keptWei: string | null };
const wei = (value: string | null) => (value === null ? 0n : BigInt(value));

/** What fundings cost the budget: each funding and its own gas. */
export const spentOf = (rows: readonly CostRow[]) =>
  rows.reduce((sum, row) => sum + BigInt(row.fundingWei) + wei(row.fundingFeeWei), 0n);

/**
 * What a payer's fundings count against its cap: what it kept, or the whole funding while its approve's outcome is
 * unknown (it may yet keep all of it), plus each funding's own gas.
 */
export const keptOf = (rows: readonly CostRow[]) =>
  rows.reduce(
    (sum, row) => sum + (row.keptWei === null ? BigInt(row.fundingWei) : BigInt(row.keptWei)) + wei(row.fundingFeeWei),
    0n,
  );

/** Both stores' update of the costs: each parameter null leaves its column as it is. */
export const costValues = (costs: FundingCosts) =>
  [costs.fundingFeeWei, costs.approveCostWei, costs.keptWei].map((value) =>
    value === undefined ? null : value.toString(),
  ) as [string | null, string | null, string | null];

/** A claim's insert parameters in both stores' column order; `time` is its created_at and updated_at. */
export const claimValues = (record: NewFundedApproval, time: string) =>
  [
    record.network,
    record.payer.toLowerCase(),
    record.nonce,
    record.token.toLowerCase(),
    record.spender.toLowerCase(),
    record.approveRaw,
    record.approveHash.toLowerCase(),
    record.fundingWei,
    time,
  ] as [string, string, number, string, string, string, string, string, string];

/** The sum of fundings, from their decimal strings. */
export const sumWei = (rows: { fundingWei: string }[]) => rows.reduce((sum, row) => sum + BigInt(row.fundingWei), 0n);

/** The columns of a CostRow, in both databases' spelling (quoted for PostgreSQL's case). */
export const COST_COLUMNS = `funding_wei AS "fundingWei", funding_fee_wei AS "fundingFeeWei", kept_wei AS "keptWei"`;

const COLUMNS = `id, network, payer, nonce, token, spender, approve_raw AS approveRaw, approve_hash AS approveHash,
  funding_wei AS fundingWei, funding_tx_hash AS fundingTxHash, funding_raw_tx AS fundingRawTx,
  funding_fee_wei AS fundingFeeWei, approve_cost_wei AS approveCostWei, kept_wei AS keptWei, status, error,
  created_at AS createdAt, updated_at AS updatedAt`;

/** Funded approvals in the service's SQLite file: statements of bun:sqlite, the budget read and claim in one transaction. */
export function createFundingStoreSqlite(db: Db): FundingStore {
  const client = db.$client;
  const now = () => new Date().toISOString();
  const byNonce = client.query<FundedApproval, [string, string, number]>(
    `SELECT ${COLUMNS} FROM funded_approvals WHERE network = ? AND payer = ? AND nonce = ?`,
  );
  const open = client.query<FundedApproval, [string, string, string]>(
    `SELECT ${COLUMNS} FROM funded_approvals WHERE network = ? AND payer = ? AND token = ? AND funding_wei != '0'
      AND status != 'used' LIMIT 1`,
  );
  const spentSince = client.query<CostRow, [string, string]>(
    `SELECT ${COST_COLUMNS} FROM funded_approvals WHERE network = ? AND created_at >= ? AND funding_wei != '0'`,
  );
  const payerSince = client.query<CostRow, [string, string, string]>(
    `SELECT ${COST_COLUMNS} FROM funded_approvals WHERE network = ? AND payer = ? AND created_at >= ?
      AND funding_wei != '0'`,
  );
  const setCosts = client.query<unknown, [string | null, string | null, string | null, string, number]>(
    `UPDATE funded_approvals SET funding_fee_wei = COALESCE(?1, funding_fee_wei),
      approve_cost_wei = COALESCE(?2, approve_cost_wei), kept_wei = COALESCE(?3, kept_wei), updated_at = ?4 WHERE id = ?5`,
  );
  const insert = client.query<FundedApproval, ReturnType<typeof claimValues>>(
    `INSERT INTO funded_approvals (network, payer, nonce, token, spender, approve_raw, approve_hash, funding_wei,
      status, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'pending', ?9, ?9)
      ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
  );
  const setSent = client.query<{ id: number }, [string, string, string, number]>(
    `UPDATE funded_approvals SET status = 'funding_sent', funding_tx_hash = ?, funding_raw_tx = ?, updated_at = ?
      WHERE id = ? AND status = 'pending' RETURNING id`,
  );
  const setReplaced = client.query<unknown, [string, string, number]>(
    "UPDATE funded_approvals SET funding_tx_hash = ?, updated_at = ? WHERE id = ? AND status = 'funding_sent'",
  );
  const setStatus = client.query<unknown, [string, string | null, string, number]>(
    "UPDATE funded_approvals SET status = ?, error = ?, updated_at = ? WHERE id = ?",
  );
  const setUsed = client.query<unknown, [string, string, string, string]>(
    `UPDATE funded_approvals SET status = 'used', updated_at = ? WHERE network = ? AND payer = ? AND token = ?
      AND status = 'approved'`,
  );
  const remove = client.query<unknown, [number]>("DELETE FROM funded_approvals WHERE id = ? AND status = 'pending'");
  const unfinished = client.query<FundedApproval, []>(
    `SELECT ${COLUMNS} FROM funded_approvals WHERE status IN ('pending', 'funding_sent', 'approve_sent') ORDER BY id`,
  );
  const lower = (address: string) => address.toLowerCase();
  const claim = client.transaction((record: NewFundedApproval, budget: FundingLimit, payerCap?: FundingLimit) => {
    const existing = byNonce.get(record.network, lower(record.payer), record.nonce);
    if (existing) return { kind: "exists", record: existing } as FundingClaim;
    const funded =
      BigInt(record.fundingWei) > 0n ? open.get(record.network, lower(record.payer), lower(record.token)) : null;
    if (funded) return { kind: "already_funded", record: funded } as FundingClaim;
    const spent = spentOf(spentSince.all(record.network, budget.since));
    if (overBudget(record, spent, budget)) return { kind: "over_budget", spent } as FundingClaim;
    if (payerCap) {
      const counted = keptOf(payerSince.all(record.network, lower(record.payer), payerCap.since));
      if (overBudget(record, counted, payerCap)) return { kind: "payer_capped", counted } as FundingClaim;
    }
    const created = insert.get(...claimValues(record, now()));
    if (!created) throw new Error("funded approval vanished during its claim");
    return { kind: "created", record: created } as FundingClaim;
  });
  return {
    find: async (network, payer, nonce) => byNonce.get(network, lower(payer), nonce) ?? undefined,
    openFunding: async (network, payer, token) => open.get(network, lower(payer), lower(token)) ?? undefined,
    claim: async (record, budget, payerCap) => claim.immediate(record, budget, payerCap),
    recordCosts: async (id, costs) => void setCosts.run(...costValues(costs), now(), id),
    async fundingSent(id, txHash, rawTx) {
      if (setSent.all(txHash, rawTx, now(), id).length !== 1)
        throw new Error(`funded approval ${id} is no longer pending; its funding is not sent`);
    },
    fundingReplaced: async (id, txHash) => void setReplaced.run(txHash, now(), id),
    setStatus: async (id, status, error) => void setStatus.run(status, error ?? null, now(), id),
    markUsed: async (network, payer, token) => void setUsed.run(now(), network, lower(payer), lower(token)),
    release: async (id) => void remove.run(id),
    unfinished: async () => unfinished.all(),
  };
}
