// docs/ops/: the Grafana dashboard and the Prometheus alert rules name only metrics a running service serves on
// /metrics (their exprs parsed for metric names), with labels those metrics carry; and the stuck-records gauge the
// alerts read counts a record left pending.
import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress } from "../support/chain";
import { trackServices } from "../support/service";

const DOCS = join(import.meta.dir, "../../docs/ops");
const services = trackServices();
afterAll(() => services.stopAll());

/** Every PromQL expression of the alert rules and of the Grafana panels. */
function expressions(): { where: string; expr: string }[] {
  const rules = Bun.YAML.parse(readFileSync(join(DOCS, "alerts.yml"), "utf8")) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  const dashboard = JSON.parse(readFileSync(join(DOCS, "grafana-dashboard.json"), "utf8")) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  return [
    ...rules.groups.flatMap((group) => group.rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr }))),
    ...dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ where: `panel ${panel.title}`, expr: target.expr })),
    ),
  ];
}

const KEYWORDS = new Set(["and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "inf", "nan"]);

/** The metric names and the label names a PromQL expression reads. */
function namesIn(expr: string): { metrics: string[]; labels: string[] } {
  const labels: string[] = [];
  let rest = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  rest = rest.replace(/\{([^}]*)\}/g, (_, matchers: string) => {
    for (const [, name] of matchers.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)) labels.push(name as string);
    return " ";
  });
  rest = rest.replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g, (_, list: string) => {
    labels.push(
      ...list
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean),
    );
    return " ";
  });
  rest = rest.replace(/\[[^\]]*\]/g, " ").replace(/(?<![a-zA-Z0-9_:])[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/g, " ");
  const metrics = [...rest.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)]
    .filter(([, name, call]) => !call && !KEYWORDS.has((name as string).toLowerCase()))
    .map(([, name]) => name as string);
  return { metrics, labels };
}

test("the exprs' parser finds metrics and labels, not functions, numbers or durations", () => {
  expect(
    namesIn('sum by (le, flow) (rate(relay402_a_bucket{status=~"5..", x="{y}"}[5m])) / on (flow) b_total > 1e16 and c'),
  ).toEqual({ metrics: ["relay402_a_bucket", "b_total", "c"], labels: ["status", "x", "le", "flow", "flow"] });
});

test("every metric docs/ops names is on /metrics with the labels it reads; the stuck gauge counts a pending record", async () => {
  const service = services.start();
  // One payment, so the request and settle metrics carry samples whose labels the exprs read.
  const payer = await freshPayer("bsc");
  const value = 10n ** BigInt(chainOf("bsc").token.decimals);
  await approveRelayer("bsc", payer.key, value);
  const settled = await service.post(
    "/settle",
    await signedPayment({ network: "bsc", key: payer.key, to: randomAddress(), value }),
  );
  expect(settled.status).toBe(200);
  // A record pending for 10 minutes (its process died before it sent): stuck.
  const tenMinutesAgo = new Date(Date.now() - 600_000).toISOString();
  service.db.$client
    .query(
      "INSERT INTO eoa_settlements (network, payer, nonce, token, recipient, amount, valid_after, valid_before, signature, status, created_at, updated_at) VALUES ('bsc', ?, ?, ?, ?, '1', 0, 0, '0x', 'pending', ?, ?)",
    )
    .run(
      payer.address,
      `0x${"51".repeat(32)}`,
      chainOf("bsc").token.address,
      randomAddress(),
      tenMinutesAgo,
      tenMinutesAgo,
    );

  const text = (await service.get("/metrics", { "x-admin-api-key": service.config.adminApiKey })).body as string;
  const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name, type]));
  const labelsOf = new Map<string, Set<string>>();
  for (const [, name, labels] of text.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\} /gm)) {
    const set = labelsOf.get(name as string) ?? new Set<string>();
    for (const [, label] of (labels as string).matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) set.add(label as string);
    labelsOf.set(name as string, set);
  }
  /** The family a sample name belongs to: a histogram's _bucket, _count and _sum are its own. */
  const familyOf = (name: string) => {
    const base = name.replace(/_(bucket|count|sum)$/, "");
    return types.get(base) === "histogram" ? base : name;
  };

  const exprs = expressions();
  expect(exprs.length).toBeGreaterThan(15);
  const named = new Set<string>();
  let labelChecked = 0;
  for (const { where, expr } of exprs) {
    const { metrics, labels } = namesIn(expr);
    expect({ where, metrics: metrics.length > 0 }).toEqual({ where, metrics: true });
    for (const metric of metrics) {
      named.add(familyOf(metric));
      expect({ where, metric, served: types.has(familyOf(metric)) }).toEqual({ where, metric, served: true });
    }
    // Labels are checked where the metrics carry samples now (a histogram nobody observed has none yet).
    const carried = metrics.map((metric) => labelsOf.get(metric));
    if (carried.some((set) => set === undefined)) continue;
    labelChecked += 1;
    for (const label of labels)
      expect({ where, label, carried: carried.some((set) => set?.has(label)) }).toEqual({
        where,
        label,
        carried: true,
      });
  }
  expect(labelChecked).toBeGreaterThan(10);
  // The five conditions the issue asks to alert on, each read by a rule.
  for (const metric of [
    "relay402_executor_balance_wei",
    "relay402_paymaster_deposit_wei",
    "relay402_http_requests_total",
    "relay402_stuck_records",
    "relay402_executor_keys_held",
  ])
    expect(named.has(metric)).toBe(true);

  expect(text).toMatch(/^relay402_stuck_records\{network="bsc",flow="eoa"\} 1$/m);
  expect(text).toMatch(/^relay402_stuck_records\{network="base",flow="eoa"\} 0$/m);
}, 60_000);
