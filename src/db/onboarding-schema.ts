import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Zero-gas onboarding's table, beside the settlement records of src/db/schema.ts (drizzle.config.ts reads every schema file).

/**
 * Approves signed by payers without native coins that the service funds and broadcasts (src/onboarding/), written
 * before the funding is signed. (network, payer, nonce) is unique: only one transaction of a payer's nonce can ever
 * be mined, so a payer is funded at most once per nonce, across requests, processes and instances.
 */
export const fundedApprovals = sqliteTable(
  "funded_approvals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    network: text("network").notNull(),
    payer: text("payer").notNull(),
    /** The signed approve's account nonce. */
    nonce: integer("nonce").notNull(),
    token: text("token").notNull(),
    spender: text("spender").notNull(),
    /** The approve's signed raw transaction and its hash. */
    approveRaw: text("approve_raw").notNull(),
    approveHash: text("approve_hash").notNull(),
    /** Wei sent to the payer ("0": it could pay the approve itself). */
    fundingWei: text("funding_wei").notNull(),
    fundingTxHash: text("funding_tx_hash"),
    fundingRawTx: text("funding_raw_tx"),
    /** What the mined funding's own gas cost us (gas used × effective price); null until it is mined. */
    fundingFeeWei: text("funding_fee_wei"),
    /** What the mined approve burnt (gas used × effective price); null until its outcome, "0" when diverted. */
    approveCostWei: text("approve_cost_wei"),
    /** What of the funding stayed with the payer (funding − approve cost, at least 0); null until the outcome. */
    keptWei: text("kept_wei"),
    /**
     * pending · funding_sent · approve_sent · approved · used (its allowance paid) · diverted (nonce used elsewhere) ·
     * reverted · refused (the node would not take the funded approve) · abandoned (approve_sent past its deadline).
     */
    status: text("status", {
      enum: [
        "pending",
        "funding_sent",
        "approve_sent",
        "approved",
        "used",
        "diverted",
        "reverted",
        "refused",
        "abandoned",
      ],
    }).notNull(),
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

export type FundedApproval = typeof fundedApprovals.$inferSelect;
