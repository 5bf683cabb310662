import { t } from "elysia";
import { DASHBOARD_FLOWS, DASHBOARD_STATUSES } from "./records";

/** A flow's name, as a filter and in a record (a closed set written out: see the note on the routes' filters). */
export const FlowName = t.Union([
  t.Literal("eoa"),
  t.Literal("x402"),
  t.Literal("smart-wallet"),
  t.Literal("deployment"),
  t.Literal("incognito"),
  t.Literal("swap"),
]);

// The answers of /dashboard/api/*, as documented in OpenAPI and checked by Elysia: amounts and wei are decimal
// strings (exact at 256 bits), "unknown" where a record did not keep the figure.

const Decimal = t.String({ pattern: "^[0-9]{1,80}$", description: "decimal integer (smallest units or wei)" });
const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);
/** A token's symbol: the config's, else its contract's (anyone's text: shown as text only); null when unknown. */
const TokenSymbol = t.Union([t.String(), t.Null()], { description: "the token's symbol; null when unknown" });
const TokenAmounts = t.Array(t.Object({ token: t.String(), symbol: TokenSymbol, amount: Decimal }));
const KnownSum = t.Object({
  wei: Decimal,
  known: t.Integer({ description: "rows that recorded the figure" }),
  unknown: t.Integer({ description: "rows from before the figure was recorded (not counted as 0)" }),
});

/** What funded approves cost a network over the range, and its funding budget's window now. */
const OnboardingSchema = t.Object({
  network: t.String(),
  enabled: t.Boolean({ description: "the network funds approves (fundedApprove.enabled)" }),
  payersFunded: t.Integer({ description: "distinct payers sent a funding in the range" }),
  fundings: t.Integer({ description: "fundings sent in the range" }),
  fundingWei: Decimal,
  diverted: t.Object(
    { count: t.Integer(), wei: Decimal },
    { description: "fundings whose payer used the approve's nonce for another transaction: lost" },
  ),
  lost: t.Object(
    { count: t.Integer(), wei: Decimal },
    {
      description:
        "fundings whose approve will never be mined: diverted, refused by the node after funding, or abandoned (not mined within 30 minutes)",
    },
  ),
  fundingGas: t.Object(KnownSum.properties, { description: "what the fundings' own transactions cost in gas" }),
  approveGas: t.Object(KnownSum.properties, { description: "what the funded approves burnt (gas used × price)" }),
  kept: t.Object(KnownSum.properties, {
    description: "what the payers kept of their fundings (funding − approve burnt; all of it when diverted)",
  }),
  payersKept: t.Array(t.Object({ payer: t.String(), fundings: t.Integer(), keptWei: Decimal }), {
    description: "the payers who kept most of their fundings in the range, most first (at most 10)",
  }),
  budget: t.Object(
    {
      wei: Decimal,
      windowSeconds: t.Integer(),
      spentWei: Decimal,
    },
    {
      description:
        "fundedApprove.budgetWei per budgetWindowSeconds, and the fundings (with their own gas) of the window ending now",
    },
  ),
});

export const SummarySchema = t.Object({
  range: t.UnionEnum(["hour", "day", "month"]),
  from: t.String(),
  to: t.String(),
  flows: t.Array(
    t.Object({
      network: t.String(),
      flow: t.UnionEnum(DASHBOARD_FLOWS),
      settlements: t.Object({ total: t.Integer(), success: t.Integer(), failed: t.Integer(), pending: t.Integer() }),
      successRate: Nullable(t.Number()),
      volume: TokenAmounts,
      fees: TokenAmounts,
      gas: KnownSum,
      sponsored: KnownSum,
      spentWei: Decimal,
      latencyMs: Nullable(t.Object({ p50: t.Number(), p95: t.Number(), p99: t.Number(), samples: t.Integer() })),
    }),
  ),
  totals: t.Object({
    settlements: t.Integer(),
    volume: TokenAmounts,
    fees: TokenAmounts,
    spentWeiByNetwork: t.Record(t.String(), Decimal),
    unknownGas: t.Integer(),
  }),
  series: t.Array(
    t.Object({ start: t.String(), success: t.Integer(), failed: t.Integer(), pending: t.Integer(), spentWei: Decimal }),
  ),
  onboarding: t.Array(OnboardingSchema, {
    description: "zero-gas onboarding per network (the network filter applies, the flow filter does not)",
  }),
});

const Unknowable = Nullable(t.Union([Decimal, t.Literal("unknown")]));

export const SettlementViewSchema = t.Object({
  paymentId: Nullable(
    t.String({ description: "the payment's id (GET /payments/{paymentId}); null for a moment after its claim" }),
  ),
  network: t.String(),
  flow: t.UnionEnum(DASHBOARD_FLOWS),
  status: t.UnionEnum(DASHBOARD_STATUSES),
  token: Nullable(t.String()),
  symbol: TokenSymbol,
  amount: Nullable(t.String()),
  fee: Nullable(t.String()),
  payer: t.String(),
  payee: Nullable(t.String()),
  txHash: Nullable(t.String()),
  block: Nullable(t.Integer({ description: "the block of its transaction" })),
  explorerUrl: Nullable(t.String()),
  gasWei: Unknowable,
  sponsoredWei: Unknowable,
  latencyMs: Nullable(t.Number()),
  createdAt: t.String(),
  error: Nullable(t.String()),
});

export const SettlementsSchema = t.Object({
  settlements: t.Array(SettlementViewSchema),
  next: Nullable(t.String({ description: "the `before` of the next page; null on the last" })),
});

export const AttentionSchema = t.Object({
  executors: t.Array(
    t.Object({
      network: t.String(),
      address: t.String(),
      balanceWei: Nullable(Decimal),
      alertBelowWei: Decimal,
      low: t.Boolean(),
      inFlight: t.Integer(),
      leaseHolder: Nullable(t.String()),
      lastsHours: Nullable(t.Number()),
    }),
  ),
  paymasters: t.Array(
    t.Object({
      network: t.String(),
      depositWei: Nullable(Decimal),
      alertBelowWei: Decimal,
      low: t.Boolean({ description: "the deposit was read and is below alertBelowWei (dashboard.paymasterAlertWei)" }),
      averageSponsoredWei: Nullable(Decimal),
      coversUserOps: Nullable(Decimal),
    }),
  ),
  stuck: t.Array(SettlementViewSchema),
  denied: t.Array(
    t.Object({
      network: t.String(),
      kind: t.String(),
      address: t.String(),
      reverts: t.Integer(),
      lastRevertAt: t.Integer(),
      lastReason: t.String(),
      denied: t.Boolean(),
    }),
  ),
  errors: t.Array(t.Object({ reason: t.String(), count: t.Integer(), lastAt: t.String() })),
});
