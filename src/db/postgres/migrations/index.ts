// Generated SQL from `drizzle-kit generate --config drizzle.postgres.config.ts`, imported as text so that
// `bun build --compile` embeds it. Add each new migration here, in order.
import m0000 from "./0000_initial.sql" with { type: "text" };
import m0001 from "./0001_key_leases.sql" with { type: "text" };
import m0002 from "./0002_incognito_leaf_keys.sql" with { type: "text" };
import m0003 from "./0003_swap_authorization_hash.sql" with { type: "text" };
import m0004 from "./0004_receipt_figures.sql" with { type: "text" };
import m0005 from "./0005_dashboard_indexes.sql" with { type: "text" };
import m0006 from "./0006_funded_approvals.sql" with { type: "text" };
import m0007 from "./0007_dashboard_rollups.sql" with { type: "text" };
import m0008 from "./0008_funding_costs.sql" with { type: "text" };
import m0009 from "./0009_x402_payment_identifiers.sql" with { type: "text" };
import m0010 from "./0010_payment_lookup.sql" with { type: "text" };
import m0011 from "./0011_webhooks.sql" with { type: "text" };
import m0012 from "./0012_alert_read_block.sql" with { type: "text" };

export const POSTGRES_MIGRATIONS: { name: string; sql: string }[] = [
  { name: "0000_initial", sql: m0000 },
  { name: "0001_key_leases", sql: m0001 },
  { name: "0002_incognito_leaf_keys", sql: m0002 },
  { name: "0003_swap_authorization_hash", sql: m0003 },
  { name: "0004_receipt_figures", sql: m0004 },
  { name: "0005_dashboard_indexes", sql: m0005 },
  { name: "0006_funded_approvals", sql: m0006 },
  { name: "0007_dashboard_rollups", sql: m0007 },
  { name: "0008_funding_costs", sql: m0008 },
  { name: "0009_x402_payment_identifiers", sql: m0009 },
  { name: "0010_payment_lookup", sql: m0010 },
  { name: "0011_webhooks", sql: m0011 },
  { name: "0012_alert_read_block", sql: m0012 },
];
