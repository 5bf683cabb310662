// Generated SQL from `drizzle-kit generate`, imported as text so that `bun build --compile` embeds it.
// Add each new migration here, in order.
import m0000 from "./0000_eoa_settlements.sql" with { type: "text" };
import m0001 from "./0001_issued_user_ops.sql" with { type: "text" };
import m0002 from "./0002_deployments.sql" with { type: "text" };
import m0003 from "./0003_deny_counters.sql" with { type: "text" };
import m0004 from "./0004_deployment_attempts.sql" with { type: "text" };
import m0005 from "./0005_issued_user_ops_index.sql" with { type: "text" };
import m0006 from "./0006_x402_settlements.sql" with { type: "text" };
import m0007 from "./0007_x402_settlement_token.sql" with { type: "text" };
import m0008 from "./0008_incognito_leaves.sql" with { type: "text" };
import m0009 from "./0009_swap_settlements.sql" with { type: "text" };
import m0010 from "./0010_key_leases.sql" with { type: "text" };
import m0011 from "./0011_incognito_leaf_keys.sql" with { type: "text" };
import m0012 from "./0012_swap_authorization_hash.sql" with { type: "text" };
import m0013 from "./0013_receipt_figures.sql" with { type: "text" };
import m0014 from "./0014_dashboard_indexes.sql" with { type: "text" };
import m0015 from "./0015_funded_approvals.sql" with { type: "text" };
import m0016 from "./0016_dashboard_rollups.sql" with { type: "text" };
import m0017 from "./0017_funding_costs.sql" with { type: "text" };
import m0018 from "./0018_x402_payment_identifiers.sql" with { type: "text" };
import m0019 from "./0019_payment_lookup.sql" with { type: "text" };
import m0020 from "./0020_webhooks.sql" with { type: "text" };
import m0021 from "./0021_alert_read_block.sql" with { type: "text" };

export const MIGRATIONS: { name: string; sql: string }[] = [
  { name: "0000_eoa_settlements", sql: m0000 },
  { name: "0001_issued_user_ops", sql: m0001 },
  { name: "0002_deployments", sql: m0002 },
  { name: "0003_deny_counters", sql: m0003 },
  { name: "0004_deployment_attempts", sql: m0004 },
  { name: "0005_issued_user_ops_index", sql: m0005 },
  { name: "0006_x402_settlements", sql: m0006 },
  { name: "0007_x402_settlement_token", sql: m0007 },
  { name: "0008_incognito_leaves", sql: m0008 },
  { name: "0009_swap_settlements", sql: m0009 },
  { name: "0010_key_leases", sql: m0010 },
  { name: "0011_incognito_leaf_keys", sql: m0011 },
  { name: "0012_swap_authorization_hash", sql: m0012 },
  { name: "0013_receipt_figures", sql: m0013 },
  { name: "0014_dashboard_indexes", sql: m0014 },
  { name: "0015_funded_approvals", sql: m0015 },
  { name: "0016_dashboard_rollups", sql: m0016 },
  { name: "0017_funding_costs", sql: m0017 },
  { name: "0018_x402_payment_identifiers", sql: m0018 },
  { name: "0019_payment_lookup", sql: m0019 },
  { name: "0020_webhooks", sql: m0020 },
  { name: "0021_alert_read_block", sql: m0021 },
];
