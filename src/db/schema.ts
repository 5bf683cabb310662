import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

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
    /**
     * pending: nothing sent yet · sent: signed tx stored and broadcast · success · reverted · failed: never
     * mined (may be settled again) · rejected: the nonce was used by a different authorization (nonce_error).
     */
    status: text("status", { enum: ["pending", "sent", "success", "reverted", "failed", "rejected"] }).notNull(),
    txHash: text("tx_hash"),
    rawTx: text("raw_tx"),
    blockNumber: integer("block_number"),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /**
     * What the mined transaction of `tx_hash` cost (its receipt, decimal strings: exact at any size) and when: sent
     * when journaled before its broadcast, mined when the service saw the receipt (both ISO, the service's clock).
     * Null when unknown: rows from before these columns, and outcomes concluded without our receipt.
     */
    gasUsed: text("gas_used"),
    effectiveGasPrice: text("effective_gas_price"),
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

/**
 * UserOps the service built and its paymaster signed (wallet payments, deployments paid by a wallet,
 * incognito, swaps). Settle accepts only a UserOp issued here, unchanged but for its signature, before
 * `expiresAt`; once sent, a repeated settle answers from `result`.
 */
export const issuedUserOps = sqliteTable(
  "issued_user_ops",
  {
    userOpHash: text("user_op_hash").primaryKey(),
    network: text("network").notNull(),
    kind: text("kind", { enum: ["payment", "deployment", "incognito", "swap"] }).notNull(),
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
    /**
     * The bundle transaction's receipt (gas of the whole bundle, decimal strings) and, from this UserOp's
     * UserOperationEvent, what the paymaster paid (actual_gas_cost, wei) for actual_gas_used. sent: when settle
     * claimed it for the bundler; mined: when the service read its outcome (ISO, the service's clock). Null when
     * unknown: rows from before these columns, and UserOps that never executed.
     */
    gasUsed: text("gas_used"),
    effectiveGasPrice: text("effective_gas_price"),
    actualGasCost: text("actual_gas_cost"),
    actualGasUsed: text("actual_gas_used"),
    sentAt: text("sent_at"),
    minedAt: text("mined_at"),
    /** The bundle transaction's block, from its receipt; null when it did not execute or before this column. */
    blockNumber: integer("block_number"),
  },
  (table) => [
    // A sender's newest unexpired issues (to name a changed field) without reading the rest of its rows.
    index("issued_user_ops_recent").on(table.network, table.sender, table.status, table.kind, table.expiresAt),
    // The purge of expired issues.
    index("issued_user_ops_expiry").on(table.status, table.expiresAt),
    // The dashboard's reads (src/dashboard): a time range, and the newest rows first.
    index("issued_user_ops_created").on(table.createdAt),
    // What changed since the dashboard's last rollup refresh (src/dashboard/rollups.ts).
    index("issued_user_ops_updated").on(table.updatedAt),
    // Records not concluded (the dashboard's stuck list and gauge), a few among many.
    index("issued_user_ops_unconcluded").on(table.createdAt).where(sql`${table.status} IN ('sending')`),
    // The payment lookup (src/lookup): by id, and every payment of one transaction.
    index("issued_user_ops_tx_hash").on(table.txHash),
    // An incognito spend's pending UserOps by nullifier (src/userops/issued-user-op-store.ts).
    index("issued_user_ops_nullifier")
      .on(sql`json_extract(${table.context}, '$.nullifierHash')`)
      .where(sql`${table.kind} = 'incognito'`),
    // The pending UserOps inserting a leaf: a shield's commitment or an unshield's change.
    index("issued_user_ops_leaf")
      .on(
        sql`coalesce(json_extract(${table.context}, '$.commitment'), json_extract(${table.context}, '$.changeCommitment'))`,
      )
      .where(sql`${table.kind} = 'incognito'`),
  ],
);

export type IssuedUserOp = typeof issuedUserOps.$inferSelect;

/**
 * One row per deployment batch (one fee payment for 1–10 wallets). `batchKey` identifies the payment
 * (EOA: network + payer + fee nonce; smart wallet: userOpHash), so the same batch settled twice or
 * concurrently finds this row instead of paying again.
 */
export const deploymentBatches = sqliteTable("deployment_batches", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  batchKey: text("batch_key").notNull().unique(),
  network: text("network").notNull(),
  flow: text("flow", { enum: ["eoa", "wallet"] }).notNull(),
  owner: text("owner").notNull(),
  payer: text("payer").notNull(),
  token: text("token").notNull(),
  feeRecipient: text("fee_recipient").notNull(),
  deploymentFee: text("deployment_fee").notNull(),
  fundingRequested: integer("funding_requested", { mode: "boolean" }).notNull(),
  /** EOA flow: the fee authorization (JSON), replayed through the idempotent EOA settler. */
  feeAuthorization: text("fee_authorization"),
  /** Smart-wallet flow: the signed UserOp (RPC form, JSON), stored before it goes to the bundler. */
  userOpHash: text("user_op_hash"),
  signedUserOp: text("signed_user_op"),
  /** pending: nothing sent · sending: handed to the settler/bundler, outcome unknown · success · failed. */
  paymentStatus: text("payment_status", { enum: ["pending", "sending", "success", "failed"] }).notNull(),
  paymentTxHash: text("payment_tx_hash"),
  paymentError: text("payment_error"),
  /** The answer of the first settle that finished (response or error envelope), JSON. */
  result: text("result"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export type DeploymentBatch = typeof deploymentBatches.$inferSelect;

/**
 * One row per wallet of a batch, with its deployment and funding steps. Each step goes
 * pending → sending (leased by one worker) → sent (hash and raw transaction stored, then broadcast)
 * → success | failed (retried by a claim) | abandoned (never retried: the error says why, e.g. the funding's nonce
 * was used by a different authorization). `reserved` holds while the batch's fee is paid or being paid: a wallet belongs
 * to at most one such batch per network.
 */
export const deploymentWallets = sqliteTable(
  "deployment_wallets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    batchId: integer("batch_id")
      .notNull()
      .references(() => deploymentBatches.id),
    position: integer("position").notNull(),
    network: text("network").notNull(),
    owner: text("owner").notNull(),
    walletAddress: text("wallet_address").notNull(),
    salt: text("salt").notNull(),
    reserved: integer("reserved", { mode: "boolean" }).notNull(),
    deploymentStatus: text("deployment_status", {
      enum: ["pending", "sending", "sent", "success", "failed", "abandoned"],
    }).notNull(),
    deploymentTxHash: text("deployment_tx_hash"),
    deploymentRawTx: text("deployment_raw_tx"),
    deploymentError: text("deployment_error"),
    /** Deployment transactions this wallet was in that were mined without deploying it (capped per network). */
    deploymentAttempts: integer("deployment_attempts").notNull().default(0),
    /** Unix seconds before which a claim does not send the deployment again (backoff after a failed attempt). */
    deploymentRetryAfter: integer("deployment_retry_after"),
    fundingRequested: integer("funding_requested", { mode: "boolean" }).notNull(),
    fundingAmount: text("funding_amount").notNull(),
    /** EOA flow: the funding authorization (JSON) executed after the wallet is deployed. */
    fundingAuthorization: text("funding_authorization"),
    fundingStatus: text("funding_status", {
      enum: ["none", "pending", "sending", "sent", "success", "failed", "abandoned"],
    }).notNull(),
    fundingTxHash: text("funding_tx_hash"),
    fundingRawTx: text("funding_raw_tx"),
    fundingError: text("funding_error"),
    /**
     * Each step's transaction as in eoa_settlements: gas and price from its receipt (decimal strings; the
     * transaction of a step serves every wallet leased with it, and each row shows the whole transaction's), sent
     * and mined times. Null when unknown.
     */
    deploymentGasUsed: text("deployment_gas_used"),
    deploymentEffectiveGasPrice: text("deployment_effective_gas_price"),
    deploymentSentAt: text("deployment_sent_at"),
    deploymentMinedAt: text("deployment_mined_at"),
    fundingGasUsed: text("funding_gas_used"),
    fundingEffectiveGasPrice: text("funding_effective_gas_price"),
    fundingSentAt: text("funding_sent_at"),
    fundingMinedAt: text("funding_mined_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [
    uniqueIndex("deployment_wallets_reserved").on(table.network, table.walletAddress).where(sql`${table.reserved} = 1`),
    index("deployment_wallets_owner").on(table.owner),
    index("deployment_wallets_batch").on(table.batchId),
  ],
);

export type DeploymentWallet = typeof deploymentWallets.$inferSelect;

/**
 * On-chain reverts a payer (EOA payments) or wallet owner (smart-wallet payments) caused, per network; the
 * swap_* kinds count swaps the market made revert apart (src/deny/deny-counters.ts). src/deny refuses the subject
 * once `reverts` reaches its kind's threshold, until the count decays.
 */
export const denyCounters = sqliteTable(
  "deny_counters",
  {
    network: text("network").notNull(),
    kind: text("kind", { enum: ["payer", "owner", "swap_payer", "swap_owner"] }).notNull(),
    /** Lowercase. */
    address: text("address").notNull(),
    reverts: integer("reverts").notNull(),
    /** Unix seconds. */
    lastRevertAt: integer("last_revert_at").notNull(),
    lastReason: text("last_reason").notNull(),
  },
  (table) => [primaryKey({ columns: [table.network, table.kind, table.address] })],
);

/**
 * One row per x402 payment the service was asked to settle (scheme exact, EIP-3009 on the token itself).
 * (network, contract, payer, nonce) is unique: each token's EIP-3009 nonces are their own space, apart from the
 * relayer's. `successAnswered` is set once a settle answered success: x402 pays for one resource per payment.
 */
export const x402Settlements = sqliteTable(
  "x402_settlements",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    network: text("network").notNull(),
    /** The contract whose nonce space the authorization uses: the token for EIP-3009, Permit2 for Permit2. */
    contract: text("contract").notNull(),
    payer: text("payer").notNull(),
    nonce: text("nonce").notNull(),
    recipient: text("recipient").notNull(),
    amount: text("amount").notNull(),
    validAfter: integer("valid_after").notNull(),
    validBefore: integer("valid_before").notNull(),
    signature: text("signature").notNull(),
    /** pending · sent · success · reverted · failed (never mined; may be settled again) · rejected (nonce used elsewhere). */
    status: text("status", { enum: ["pending", "sent", "success", "reverted", "failed", "rejected"] }).notNull(),
    successAnswered: integer("success_answered", { mode: "boolean" }).notNull().default(false),
    txHash: text("tx_hash"),
    rawTx: text("raw_tx"),
    blockNumber: integer("block_number"),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** The token moved (a Permit2 nonce is the payer's across tokens); null in EIP-3009 records made before it. */
    token: text("token"),
    /** As in eoa_settlements: what the mined transaction cost, sent and mined times; null when unknown. */
    gasUsed: text("gas_used"),
    effectiveGasPrice: text("effective_gas_price"),
    sentAt: text("sent_at"),
    minedAt: text("mined_at"),
    /**
     * The payment's id (paymentIdOf: chain id, nonce space, payer, nonce), written by the claim from the id its
     * settle computed; NULL only in rows from before that, which the start's backfill fills (src/lookup/).
     */
    paymentId: text("payment_id"),
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

export type X402Settlement = typeof x402Settlements.$inferSelect;

/**
 * The privacy pool's tree, as its `LeafInserted` events told it: one row per leaf, in insertion order (shield
 * and change commitments alike), with the root after it. Public data, served by GET /incognito/:network/leaves.
 */
export const incognitoLeaves = sqliteTable(
  "incognito_leaves",
  {
    network: text("network").notNull(),
    /** Lowercase pool address: a pool changed in config starts a new list. */
    pool: text("pool").notNull(),
    leafIndex: integer("leaf_index").notNull(),
    /** 0x-prefixed 32-byte hex. */
    commitment: text("commitment").notNull(),
    root: text("root").notNull(),
    blockNumber: integer("block_number").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.network, table.pool, table.leafIndex] }),
    // Whether a commitment is already a leaf: a settle's last check before the bundler.
    index("incognito_leaves_commitment").on(table.network, table.pool, table.commitment),
  ],
);

/** Where the leaf indexer of a network's pool resumes: the first block it has not read yet. */
export const incognitoSync = sqliteTable(
  "incognito_sync",
  {
    network: text("network").notNull(),
    pool: text("pool").notNull(),
    nextBlock: integer("next_block").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.network, table.pool] })],
);

/**
 * One row per EOA swap (SwapWithAuthorization) the service was asked to settle, written before its transaction
 * is sent; (network, payer, nonce) is unique, as for eoa_settlements, and the journal columns are theirs.
 */
export const swapSettlements = sqliteTable(
  "swap_settlements",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    network: text("network").notNull(),
    payer: text("payer").notNull(),
    nonce: text("nonce").notNull(),
    sellToken: text("sell_token").notNull(),
    buyToken: text("buy_token").notNull(),
    sellAmount: text("sell_amount").notNull(),
    minBuyAmount: text("min_buy_amount").notNull(),
    recipient: text("recipient").notNull(),
    fee: text("fee").notNull(),
    validAfter: integer("valid_after").notNull(),
    validBefore: integer("valid_before").notNull(),
    signature: text("signature").notNull(),
    /**
     * The SwapWithAuthorization's EIP-712 struct hash (lowercase hex), route included: a used nonce is this
     * record's swap only when the relayer's SwapExecuted carries this hash. Null on rows from before it.
     */
    authorizationHash: text("authorization_hash"),
    status: text("status", { enum: ["pending", "sent", "success", "reverted", "failed", "rejected"] }).notNull(),
    txHash: text("tx_hash"),
    rawTx: text("raw_tx"),
    blockNumber: integer("block_number"),
    error: text("error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** As in eoa_settlements: what the mined transaction cost, sent and mined times; null when unknown. */
    gasUsed: text("gas_used"),
    effectiveGasPrice: text("effective_gas_price"),
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

export type SwapSettlement = typeof swapSettlements.$inferSelect;
