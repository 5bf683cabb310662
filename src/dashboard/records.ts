// The settlement records of every flow as one list of rows (SQL text shared by SQLite and PostgreSQL): the EOA,
// x402 and swap journals, and the UserOps the paymaster sponsored (wallet payments, deployments paid by a wallet,
// incognito, wallet swaps). Amounts and gas stay decimal strings here; figures.ts sums them as bigints.

/** The flows the dashboard tells apart. */
export const DASHBOARD_FLOWS = ["eoa", "x402", "smart-wallet", "deployment", "incognito", "swap"] as const;
export type DashboardFlow = (typeof DASHBOARD_FLOWS)[number];

/** success · failed (reverted, refused, never mined) · pending (not concluded yet). */
export const DASHBOARD_STATUSES = ["success", "failed", "pending"] as const;
export type DashboardStatus = (typeof DASHBOARD_STATUSES)[number];

/** One settlement as the dashboard reads it; null where the record does not say (never a made-up zero). */
export type SettlementRow = {
  source: "eoa_settlements" | "x402_settlements" | "swap_settlements" | "issued_user_ops";
  id: string;
  network: string;
  flow: DashboardFlow;
  token: string | null;
  amount: string | null;
  fee: string | null;
  status: DashboardStatus;
  payer: string;
  payee: string | null;
  txHash: string | null;
  /** The executor's transaction: gas used × effective gas price, both from its receipt. */
  gasUsed: string | null;
  effectiveGasPrice: string | null;
  /** A UserOp's actualGasCost: what the paymaster's deposit paid for it. */
  sponsored: string | null;
  sentAt: string | null;
  minedAt: string | null;
  createdAt: string;
  error: string | null;
  /**
   * The payment's id (a UserOp's hash; a journal's is written by its claim, null only in a row from before that
   * which the start's backfill could not fill) and the block of its transaction.
   */
  paymentId: string | null;
  block: number | null;
  /** Every recipient: a wallet batch's transfers, else the payee alone (none when the record names none). */
  payees: string[];
};

/** What differs between the two databases in the queries below. */
export type Dialect = {
  /** A text field of a JSON column of issued_user_ops (`context` by default). */
  json(path: string, column?: string): string;
  /** A numeric column as a decimal string. */
  text(column: string): string;
  /** A field of the first item of a JSON array in issued_user_ops.context (a wallet batch's first transfer). */
  first(array: string, field: string): string;
  /** True when an item of a JSON array in issued_user_ops.context has `field` (lower-cased) in a list of `?`s. */
  anyIn(array: string, field: string, list: string): string;
};

export const SQLITE_DIALECT: Dialect = {
  json: (path, column = "context") => `json_extract(${column}, '$.${path}')`,
  text: (column) => column,
  first: (array, field) => `json_extract(context, '$.${array}[0].${field}')`,
  anyIn: (array, field, list) =>
    `EXISTS (SELECT 1 FROM json_each(context, '$.${array}') WHERE lower(json_extract(value, '$.${field}')) IN (${list}))`,
};

export const POSTGRES_DIALECT: Dialect = {
  json: (path, column = "context") => `(${column}::jsonb ->> '${path}')`,
  text: (column) => `${column}::text`,
  first: (array, field) => `(context::jsonb -> '${array}' -> 0 ->> '${field}')`,
  anyIn: (array, field, list) =>
    `EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(context::jsonb -> '${array}') = 'array' THEN context::jsonb -> '${array}' ELSE '[]'::jsonb END) AS item WHERE lower(item ->> '${field}') IN (${list}))`,
};

const STATUS_OF = `CASE WHEN status = 'success' THEN 'success' WHEN status IN ('pending', 'sent', 'sending') THEN 'pending' ELSE 'failed' END`;

/** A table's statuses STATUS_OF calls pending, exactly as the partial indexes *_unconcluded name them. */
const UNCONCLUDED = { journal: "status IN ('pending', 'sent')", userOps: "status IN ('sending')" };

/** A UserOp's payee: its context's recipient, else the first transfer of a wallet batch (all of them: `payees`). */
const PAYEE = (d: Dialect) => `coalesce(${d.json("recipient")}, ${d.first("transfers", "to")})`;

/** The columns of each source, in SettlementRow's order. */
function branches(d: Dialect): Record<SettlementRow["source"], { flows: DashboardFlow[]; select: string }> {
  const journal = (source: string, flow: string, token: string, amount: string, fee: string) =>
    `SELECT '${source}' AS source, CAST(id AS TEXT) AS id, network, '${flow}' AS flow, ${token} AS token,
      ${amount} AS amount, ${fee} AS fee, ${STATUS_OF} AS status, payer, recipient AS payee, tx_hash,
      ${d.text("gas_used")} AS gas_used, ${d.text("effective_gas_price")} AS effective_gas_price, NULL AS sponsored,
      sent_at, mined_at, created_at, error, payment_id, block_number, NULL AS transfers FROM ${source}`;
  return {
    eoa_settlements: { flows: ["eoa"], select: journal("eoa_settlements", "eoa", "token", "amount", "NULL") },
    x402_settlements: {
      flows: ["x402"],
      select: journal("x402_settlements", "x402", "coalesce(token, contract)", "amount", "NULL"),
    },
    swap_settlements: {
      flows: ["swap"],
      select: journal("swap_settlements", "swap", "sell_token", "sell_amount", "fee"),
    },
    issued_user_ops: {
      flows: ["smart-wallet", "deployment", "incognito", "swap"],
      select: `SELECT 'issued_user_ops' AS source, user_op_hash AS id, network,
        CASE kind WHEN 'payment' THEN 'smart-wallet' ELSE kind END AS flow,
        coalesce(${d.json("token")}, ${d.json("sellToken")}, ${d.json("feeToken")}) AS token,
        coalesce(${d.json("totalAmount")}, ${d.json("sellAmount")}, ${d.json("withdrawAmount")}, ${d.json("totalFees")}) AS amount,
        coalesce(${d.json("feeAmount")}, ${d.json("fee")}, ${d.json("totalFees")}) AS fee,
        ${STATUS_OF} AS status, sender AS payer, ${PAYEE(d)} AS payee, tx_hash,
        ${d.text("gas_used")} AS gas_used, ${d.text("effective_gas_price")} AS effective_gas_price,
        ${d.text("actual_gas_cost")} AS sponsored, sent_at, mined_at, created_at,
        CASE WHEN status = 'failed' THEN coalesce(${d.json("code", "result")}, 'failed') END AS error,
        user_op_hash AS payment_id, block_number, ${d.json("transfers")} AS transfers
        FROM issued_user_ops`,
    },
  };
}

/** Which rows a query asks for; every value is bound as a parameter, never spliced. */
export type RowFilter = {
  since?: string;
  before?: string;
  network?: string;
  flow?: DashboardFlow;
  status?: DashboardStatus;
  payer?: string;
  payee?: string;
  /** Rows paid to one of these (a merchant key's payTo addresses); an empty list selects nothing. */
  payees?: readonly string[];
  /** The payment's id: a journal's payment_id, a UserOp's hash. */
  paymentId?: string;
  /** The payments of one transaction. */
  txHash?: string;
  /** One row by its table's key (a journal's id, a UserOp's hash): with `sources`, one record. */
  recordId?: string;
  /** Only these tables (attention reads the executors' transactions or the sponsored UserOps alone). */
  sources?: readonly SettlementRow["source"][];
};

/**
 * The query of the rows a filter selects, newest first, at most `limit`: one branch per source, each bounded by
 * `created_at` (the index every source has, migrations 0014 / 0005) and the LIMIT, then merged.
 * Parameters are `?`; PostgreSQL's `$n` are numbered by the caller's runner.
 */
export function rowsQuery(d: Dialect, filter: RowFilter, limit?: number): { text: string; params: unknown[] } {
  const params: unknown[] = [];
  const parts: string[] = [];
  for (const [source, branch] of Object.entries(branches(d))) {
    if (filter.flow && !branch.flows.includes(filter.flow)) continue;
    if (filter.sources && !filter.sources.includes(source as SettlementRow["source"])) continue;
    const where: string[] = [];
    const bind = (clause: string, value: unknown) => {
      where.push(clause);
      params.push(value);
    };
    // A UserOp only issued (a quote nobody signed) is no settlement.
    if (source === "issued_user_ops") where.push("status <> 'issued'");
    if (filter.since) bind("created_at >= ?", filter.since);
    if (filter.before) bind("created_at < ?", filter.before);
    if (filter.network) bind("network = ?", filter.network);
    // Records not concluded, as each table's partial index (*_unconcluded) says them: a few among many.
    if (filter.status === "pending")
      where.push(source === "issued_user_ops" ? UNCONCLUDED.userOps : UNCONCLUDED.journal);
    else if (filter.status) bind(`${STATUS_OF} = ?`, filter.status);
    // A UserOp's payer is its wallet (sender): columns by their own names, as PostgreSQL reads no alias in WHERE.
    if (filter.payer)
      bind(`lower(${source === "issued_user_ops" ? "sender" : "payer"}) = ?`, filter.payer.toLowerCase());
    // A wallet batch is paid to every transfer's recipient: any of them selects it.
    const payees = filter.payees ?? (filter.payee === undefined ? undefined : [filter.payee]);
    if (payees?.length === 0) where.push("1 = 0");
    else if (payees) {
      const list = payees.map(() => "?").join(", ");
      where.push(
        source === "issued_user_ops"
          ? `(lower(${d.json("recipient")}) IN (${list}) OR ${d.anyIn("transfers", "to", list)})`
          : `lower(recipient) IN (${list})`,
      );
      const lower = payees.map((address) => address.toLowerCase());
      params.push(...lower, ...(source === "issued_user_ops" ? lower : []));
    }
    if (filter.paymentId)
      bind(`${source === "issued_user_ops" ? "user_op_hash" : "payment_id"} = ?`, filter.paymentId.toLowerCase());
    if (filter.txHash) bind("tx_hash = ?", filter.txHash.toLowerCase());
    // A journal's id by its primary key (a number), a UserOp's by its hash.
    if (filter.recordId !== undefined) {
      if (source === "issued_user_ops") bind("user_op_hash = ?", filter.recordId);
      else bind("id = ?", Number(filter.recordId));
    }
    if (filter.flow && source === "issued_user_ops") {
      bind("kind = ?", filter.flow === "smart-wallet" ? "payment" : filter.flow);
    }
    const condition = where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "";
    // Without a limit (a window's figures): every row of the range, in no order.
    const order = limit === undefined ? "" : ` ORDER BY created_at DESC LIMIT ${limit}`;
    parts.push(`SELECT * FROM (${branch.select}${condition}${order}) AS ${source}_rows`);
  }
  if (parts.length === 0) return { text: "SELECT NULL AS source WHERE 1 = 0", params: [] };
  const order = limit === undefined ? "" : ` ORDER BY created_at DESC LIMIT ${limit}`;
  return { text: `${parts.join(" UNION ALL ")}${order}`, params };
}

/** A database row of rowsQuery as a SettlementRow. */
export function rowOf(raw: Record<string, unknown>): SettlementRow {
  const text = (key: string) => (raw[key] === null || raw[key] === undefined ? null : String(raw[key]));
  return {
    source: raw.source as SettlementRow["source"],
    id: String(raw.id),
    network: String(raw.network),
    flow: raw.flow as DashboardFlow,
    token: text("token"),
    amount: text("amount"),
    fee: text("fee"),
    status: raw.status as DashboardStatus,
    payer: String(raw.payer),
    payee: text("payee"),
    txHash: text("tx_hash"),
    gasUsed: text("gas_used"),
    effectiveGasPrice: text("effective_gas_price"),
    sponsored: text("sponsored"),
    sentAt: text("sent_at"),
    minedAt: text("mined_at"),
    createdAt: String(raw.created_at),
    error: text("error"),
    paymentId: text("payment_id"),
    block: raw.block_number === null || raw.block_number === undefined ? null : Number(raw.block_number),
    payees: payeesOf(raw.transfers, text("payee")),
  };
}

/** A batch's recipients from its stored transfers (JSON text), else the one payee. */
function payeesOf(transfers: unknown, payee: string | null): string[] {
  if (typeof transfers === "string") {
    const list = JSON.parse(transfers) as { to?: unknown }[];
    if (Array.isArray(list)) return list.flatMap((each) => (typeof each?.to === "string" ? [each.to] : []));
  }
  return payee === null ? [] : [payee];
}
