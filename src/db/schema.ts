import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * One row per EOA authorization the service was asked to settle, written before its transaction
 * is sent. (network, payer, nonce) is unique: that is what makes settle idempotent across
 * concurrent requests and restarts.
 */
export const eoaSettlements = sqliteTable(
  "eoa_settlements",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    network: text("network").notNull(),
    payer: text("payer").notNull(),
    nonce: text("nonce").notNull(),
    token: text("token").notNull(),
    recipient: text("recipient").notNull(),
    amount: text("amount").notNull(),
    validAfter: integer("valid_after").notNull(),
    validBefore: integer("valid_before").notNull(),
    signature: text("signature").notNull(),
    /** pending: nothing sent yet · sent: signed tx stored and broadcast · success · reverted · failed: never mined. */
    status: text("status", { enum: ["pending", "sent", "success", "reverted", "failed"] }).notNull(),
    txHash: text("tx_hash"),
    rawTx: text("raw_tx"),
    blockNumber: integer("block_number"),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("eoa_settlements_authorization").on(table.network, table.payer, table.nonce)],
);

export type EoaSettlement = typeof eoaSettlements.$inferSelect;

/**
 * UserOps the service built and its paymaster signed (wallet payments, deployments paid by a wallet,
 * incognito). Settle accepts only a UserOp issued here, unchanged but for its signature, before
 * `expiresAt`; once sent, a repeated settle answers from `result`.
 */
export const issuedUserOps = sqliteTable("issued_user_ops", {
  userOpHash: text("user_op_hash").primaryKey(),
  network: text("network").notNull(),
  kind: text("kind", { enum: ["payment", "deployment", "incognito"] }).notNull(),
  sender: text("sender").notNull(),
  owner: text("owner").notNull(),
  /** The unsigned UserOp exactly as returned by verify (RPC form, JSON). */
  userOp: text("user_op").notNull(),
  /** Flow-specific context (amounts, fee, recipients, deployment batch), JSON. */
  context: text("context").notNull(),
  /** issued · sending (claimed by one settle) · success · failed (reverted, rejected or timed out). */
  status: text("status", { enum: ["issued", "sending", "success", "failed"] }).notNull(),
  txHash: text("tx_hash"),
  /** The settle response (or error envelope) of the first settle, JSON. */
  result: text("result"),
  expiresAt: integer("expires_at").notNull(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export type IssuedUserOp = typeof issuedUserOps.$inferSelect;
