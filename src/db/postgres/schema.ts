import { sql } from "drizzle-orm";
import { bigint, boolean, index, numeric, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";

// The PostgreSQL twin of src/db/schema.ts (SQLite): the same tables, columns, keys and indexes, column by column,
// so a store's PostgreSQL adapter reads and writes the rows its SQLite adapter does. What each table and column
// means is documented there; test/db/postgres-schema.test.ts compares the two migrated databases' catalogs.
//
// Types: SQLite's INTEGER is 64-bit, so every integer column is `bigint` here (unix seconds, block numbers and
// ids outgrow `integer` in 2038 or on a busy chain), read as a JS number like bun:sqlite's; integer booleans are
// `boolean`; text stays `text` (enums are checked by the code, as on SQLite). Ids are identities (by default, so
// rows copied from a SQLite file keep their ids).

const int = (name: string) => bigint(name, { mode: "number" });
/** Wei and gas figures (SQLite: decimal TEXT): any uint256, exact, read as the same decimal string. */
const amount = (name: string) => numeric(name, { precision: 78, scale: 0 });
const id = () => int("id").primaryKey().generatedByDefaultAsIdentity();
const settlementStatus = ["pending", "sent", "success", "reverted", "failed", "rejected"] as const;

export const eoaSettlements = pgTable(
  "eoa_settlements",
  {
    id: id(),
    network: text("network").notNull(),
    payer: text("payer").notNull(),
    nonce: text("nonce").notNull(),
    token: text("token").notNull(),
    recipient: text("recipient").notNull(),
    amount: text("amount").notNull(),
    validAfter: int("valid_after").notNull(),
    validBefore: int("valid_before").notNull(),
    signature: text("signature").notNull(),
    status: text("status", { enum: settlementStatus }).notNull(),
    txHash: text("tx_hash"),
    rawTx: text("raw_tx"),
    blockNumber: int("block_number"),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    gasUsed: amount("gas_used"),
    effectiveGasPrice: amount("effective_gas_price"),
    sentAt: text("sent_at"),
    minedAt: text("mined_at"),
    /**
     * The payment's id (paymentIdOf: chain id, nonce space, payer, nonce), written by the claim from the id its
     * settle computed; NULL only in rows from before that, which the start's backfill fills (src/lookup/).
     */
    paymentId: text("payment_id"),
  },
  (table) => [
    uniqueIndex("eoa_settlements_authorization").on(table.network, table.payer, table.nonce),
    // The dashboard's reads (src/dashboard): a time range, and the newest rows first.
    index("eoa_settlements_created").on(table.createdAt),
    // What changed since the dashboard's last rollup refresh (src/dashboard/rollups.ts).
    index("eoa_settlements_updated").on(table.updatedAt),
    // Records not concluded (the dashboard's stuck list and gauge), a few among many.
    index("eoa_settlements_unconcluded").on(table.createdAt).where(sql`${table.status} IN ('pending', 'sent')`),
    // The payment lookup (src/lookup): by id, and every payment of one transaction.
    index("eoa_settlements_payment_id").on(table.paymentId),
    index("eoa_settlements_tx_hash").on(table.txHash),
  ],
);

export type EoaSettlement = typeof eoaSettlements.$inferSelect;

export const issuedUserOps = pgTable(
  "issued_user_ops",
  {
    userOpHash: text("user_op_hash").primaryKey(),
    network: text("network").notNull(),
    kind: text("kind", { enum: ["payment", "deployment", "incognito", "swap"] }).notNull(),
    sender: text("sender").notNull(),
    owner: text("owner").notNull(),
    userOp: text("user_op").notNull(),
    context: text("context").notNull(),
    status: text("status", { enum: ["issued", "sending", "success", "failed"] }).notNull(),
    txHash: text("tx_hash"),
    result: text("result"),
    expiresAt: int("expires_at").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    gasUsed: amount("gas_used"),
    effectiveGasPrice: amount("effective_gas_price"),
    actualGasCost: amount("actual_gas_cost"),
    actualGasUsed: amount("actual_gas_used"),
    sentAt: text("sent_at"),
    minedAt: text("mined_at"),
    /** The bundle transaction's block, from its receipt; null when it did not execute or before this column. */
    blockNumber: int("block_number"),
  },
  (table) => [
    index("issued_user_ops_recent").on(table.network, table.sender, table.status, table.kind, table.expiresAt),
    index("issued_user_ops_expiry").on(table.status, table.expiresAt),
    // The dashboard's reads (src/dashboard): a time range, and the newest rows first.
    index("issued_user_ops_created").on(table.createdAt),
    // What changed since the dashboard's last rollup refresh (src/dashboard/rollups.ts).
    index("issued_user_ops_updated").on(table.updatedAt),
    // Records not concluded (the dashboard's stuck list and gauge), a few among many.
    index("issued_user_ops_unconcluded").on(table.createdAt).where(sql`${table.status} IN ('sending')`),
    // The payment lookup (src/lookup): by id, and every payment of one transaction.
    index("issued_user_ops_tx_hash").on(table.txHash),
    // An incognito spend's pending UserOps by nullifier (src/userops/issued-user-op-store.ts; SQLite's json_extract).
    index("issued_user_ops_nullifier")
      .on(sql`(${table.context}::jsonb ->> 'nullifierHash')`)
      .where(sql`${table.kind} = 'incognito'`),
    // The pending UserOps inserting a leaf: a shield's commitment or an unshield's change (src/userops/issued-user-op-store.ts).
    index("issued_user_ops_leaf")
      .on(sql`(coalesce(${table.context}::jsonb ->> 'commitment', ${table.context}::jsonb ->> 'changeCommitment'))`)
      .where(sql`${table.kind} = 'incognito'`),
  ],
);

export const deploymentBatches = pgTable("deployment_batches", {
  id: id(),
  batchKey: text("batch_key").notNull().unique(),
  network: text("network").notNull(),
  flow: text("flow", { enum: ["eoa", "wallet"] }).notNull(),
  owner: text("owner").notNull(),
  payer: text("payer").notNull(),
  token: text("token").notNull(),
  feeRecipient: text("fee_recipient").notNull(),
  deploymentFee: text("deployment_fee").notNull(),
  fundingRequested: boolean("funding_requested").notNull(),
  feeAuthorization: text("fee_authorization"),
  userOpHash: text("user_op_hash"),
  signedUserOp: text("signed_user_op"),
  paymentStatus: text("payment_status", { enum: ["pending", "sending", "success", "failed"] }).notNull(),
  paymentTxHash: text("payment_tx_hash"),
  paymentError: text("payment_error"),
  result: text("result"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const deploymentWallets = pgTable(
  "deployment_wallets",
  {
    id: id(),
    batchId: int("batch_id")
      .notNull()
      .references(() => deploymentBatches.id),
    position: int("position").notNull(),
    network: text("network").notNull(),
    owner: text("owner").notNull(),
    walletAddress: text("wallet_address").notNull(),
    salt: text("salt").notNull(),
    reserved: boolean("reserved").notNull(),
    deploymentStatus: text("deployment_status", {
      enum: ["pending", "sending", "sent", "success", "failed", "abandoned"],
    }).notNull(),
    deploymentTxHash: text("deployment_tx_hash"),
    deploymentRawTx: text("deployment_raw_tx"),
    deploymentError: text("deployment_error"),
    deploymentAttempts: int("deployment_attempts").notNull().default(0),
    deploymentRetryAfter: int("deployment_retry_after"),
    fundingRequested: boolean("funding_requested").notNull(),
    fundingAmount: text("funding_amount").notNull(),
    fundingAuthorization: text("funding_authorization"),
    fundingStatus: text("funding_status", {
      enum: ["none", "pending", "sending", "sent", "success", "failed", "abandoned"],
    }).notNull(),
    fundingTxHash: text("funding_tx_hash"),
    fundingRawTx: text("funding_raw_tx"),
    fundingError: text("funding_error"),
    deploymentGasUsed: amount("deployment_gas_used"),
    deploymentEffectiveGasPrice: amount("deployment_effective_gas_price"),
    deploymentSentAt: text("deployment_sent_at"),
    deploymentMinedAt: text("deployment_mined_at"),
    fundingGasUsed: amount("funding_gas_used"),
    fundingEffectiveGasPrice: amount("funding_effective_gas_price"),
    fundingSentAt: text("funding_sent_at"),
    fundingMinedAt: text("funding_mined_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [
    // A wallet is in at most one reserved batch per network: a partial unique index, as on SQLite.
    uniqueIndex("deployment_wallets_reserved").on(table.network, table.walletAddress).where(sql`${table.reserved}`),
    index("deployment_wallets_owner").on(table.owner),
    index("deployment_wallets_batch").on(table.batchId),
  ],
);

export const denyCounters = pgTable(
  "deny_counters",
  {
    network: text("network").notNull(),
    kind: text("kind", { enum: ["payer", "owner", "swap_payer", "swap_owner"] }).notNull(),
    address: text("address").notNull(),
    reverts: int("reverts").notNull(),
    lastRevertAt: int("last_revert_at").notNull(),
    lastReason: text("last_reason").notNull(),
  },
  (table) => [primaryKey({ columns: [table.network, table.kind, table.address] })],
);

export const x402Settlements = pgTable(
  "x402_settlements",
  {
    id: id(),
    network: text("network").notNull(),
    contract: text("contract").notNull(),
    payer: text("payer").notNull(),
    nonce: text("nonce").notNull(),
    recipient: text("recipient").notNull(),
    amount: text("amount").notNull(),
    validAfter: int("valid_after").notNull(),
    validBefore: int("valid_before").notNull(),
    signature: text("signature").notNull(),
    status: text("status", { enum: settlementStatus }).notNull(),
    successAnswered: boolean("success_answered").notNull().default(false),
    txHash: text("tx_hash"),
    rawTx: text("raw_tx"),
    blockNumber: int("block_number"),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    gasUsed: amount("gas_used"),
    effectiveGasPrice: amount("effective_gas_price"),
    sentAt: text("sent_at"),
    minedAt: text("mined_at"),
    /**
     * The payment's id (paymentIdOf: chain id, nonce space, payer, nonce), written by the claim from the id its
     * settle computed; NULL only in rows from before that, which the start's backfill fills (src/lookup/).
     */
    paymentId: text("payment_id"),
    token: text("token"),
  },
  (table) => [
    uniqueIndex("x402_settlements_authorization").on(table.network, table.contract, table.payer, table.nonce),
    // The dashboard's reads (src/dashboard): a time range, and the newest rows first.
    index("x402_settlements_created").on(table.createdAt),
    // What changed since the dashboard's last rollup refresh (src/dashboard/rollups.ts).
    index("x402_settlements_updated").on(table.updatedAt),
    // Records not concluded (the dashboard's stuck list and gauge), a few among many.
    index("x402_settlements_unconcluded").on(table.createdAt).where(sql`${table.status} IN ('pending', 'sent')`),
    // The payment lookup (src/lookup): by id, and every payment of one transaction.
    index("x402_settlements_payment_id").on(table.paymentId),
    index("x402_settlements_tx_hash").on(table.txHash),
  ],
);

export const incognitoLeaves = pgTable(
  "incognito_leaves",
  {
    network: text("network").notNull(),
    pool: text("pool").notNull(),
    leafIndex: int("leaf_index").notNull(),
    commitment: text("commitment").notNull(),
    root: text("root").notNull(),
    blockNumber: int("block_number").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.network, table.pool, table.leafIndex] }),
    // Whether a commitment is already a leaf: a settle's last check before the bundler.
    index("incognito_leaves_commitment").on(table.network, table.pool, table.commitment),
  ],
);

export const incognitoSync = pgTable(
  "incognito_sync",
  {
    network: text("network").notNull(),
    pool: text("pool").notNull(),
    nextBlock: int("next_block").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.network, table.pool] })],
);

export const swapSettlements = pgTable(
  "swap_settlements",
  {
    id: id(),
    network: text("network").notNull(),
    payer: text("payer").notNull(),
    nonce: text("nonce").notNull(),
    sellToken: text("sell_token").notNull(),
    buyToken: text("buy_token").notNull(),
    sellAmount: text("sell_amount").notNull(),
    minBuyAmount: text("min_buy_amount").notNull(),
    recipient: text("recipient").notNull(),
    fee: text("fee").notNull(),
    validAfter: int("valid_after").notNull(),
    validBefore: int("valid_before").notNull(),
    signature: text("signature").notNull(),
    authorizationHash: text("authorization_hash"),
    status: text("status", { enum: settlementStatus }).notNull(),
    txHash: text("tx_hash"),
    rawTx: text("raw_tx"),
    blockNumber: int("block_number"),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    gasUsed: amount("gas_used"),
    effectiveGasPrice: amount("effective_gas_price"),
    sentAt: text("sent_at"),
    minedAt: text("mined_at"),
    /**
     * The payment's id (paymentIdOf: chain id, nonce space, payer, nonce), written by the claim from the id its
     * settle computed; NULL only in rows from before that, which the start's backfill fills (src/lookup/).
     */
    paymentId: text("payment_id"),
  },
  (table) => [
    uniqueIndex("swap_settlements_authorization").on(table.network, table.payer, table.nonce),
    // The dashboard's reads (src/dashboard): a time range, and the newest rows first.
    index("swap_settlements_created").on(table.createdAt),
    // What changed since the dashboard's last rollup refresh (src/dashboard/rollups.ts).
    index("swap_settlements_updated").on(table.updatedAt),
    // Records not concluded (the dashboard's stuck list and gauge), a few among many.
    index("swap_settlements_unconcluded").on(table.createdAt).where(sql`${table.status} IN ('pending', 'sent')`),
    // The payment lookup (src/lookup): by id, and every payment of one transaction.
    index("swap_settlements_payment_id").on(table.paymentId),
    index("swap_settlements_tx_hash").on(table.txHash),
  ],
);

export const fundedApprovals = pgTable(
  "funded_approvals",
  {
    id: id(),
    network: text("network").notNull(),
    payer: text("payer").notNull(),
    nonce: int("nonce").notNull(),
    token: text("token").notNull(),
    spender: text("spender").notNull(),
    approveRaw: text("approve_raw").notNull(),
    approveHash: text("approve_hash").notNull(),
    fundingWei: text("funding_wei").notNull(),
    fundingTxHash: text("funding_tx_hash"),
    fundingRawTx: text("funding_raw_tx"),
    fundingFeeWei: text("funding_fee_wei"),
    approveCostWei: text("approve_cost_wei"),
    keptWei: text("kept_wei"),
    status: text("status").notNull(),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [
    uniqueIndex("funded_approvals_nonce").on(table.network, table.payer, table.nonce),
    index("funded_approvals_payer_token").on(table.network, table.payer, table.token),
    index("funded_approvals_created").on(table.network, table.createdAt),
  ],
);

/**
 * The dashboard's hourly rollups of the settlement records (src/dashboard/rollups.ts): per hour (ISO, the hour's start),
 * network, flow, source table and token, the counts, exact sums (NUMERIC(78, 0), summed as bigints by the
 * service; an hour whose sum would not fit is left to the rows) and a latency histogram (JSON). Built by the service from the rows; an hour is stored once it has ended and
 * none of its records is pending, and built again when one of its records changes.
 */
export const dashboardRollups = pgTable(
  "dashboard_rollups",
  {
    hour: text("hour").notNull(),
    network: text("network").notNull(),
    flow: text("flow").notNull(),
    source: text("source").notNull(),
    /** The token's address, lowercase; '' for records without one. */
    token: text("token").notNull(),
    success: int("success").notNull(),
    failed: int("failed").notNull(),
    volume: amount("volume").notNull(),
    fees: amount("fees").notNull(),
    gasWei: amount("gas_wei").notNull(),
    gasKnown: int("gas_known").notNull(),
    gasUnknown: int("gas_unknown").notNull(),
    sponsoredWei: amount("sponsored_wei").notNull(),
    sponsoredKnown: int("sponsored_known").notNull(),
    sponsoredUnknown: int("sponsored_unknown").notNull(),
    /** Latency histogram: { bucket index: count } (src/dashboard/latency.ts). */
    latency: text("latency").notNull(),
  },
  (table) => [primaryKey({ columns: [table.hour, table.network, table.flow, table.source, table.token] })],
);

/** The hours dashboard_rollups holds (an hour without records too), and when each was built. */
export const dashboardRollupHours = pgTable("dashboard_rollup_hours", {
  hour: text("hour").primaryKey(),
  builtAt: text("built_at").notNull(),
});

/** The rollups' refresh mark: rows updated since (less a margin) are built again. One row, name 'refreshed_at'. */
export const dashboardRollupState = pgTable("dashboard_rollup_state", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
});
