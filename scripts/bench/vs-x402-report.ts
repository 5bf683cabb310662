// The table bench:x402 prints: every figure recorded per side and run, its median over the runs, the ratio
// relay402 / reference, and the targets the issues set, each checked against those medians.
import { median } from "./stats";

export type Side = "relay402" | "reference";
export const SIDES: Side[] = ["relay402", "reference"];

/** A row of the table: its label and unit; `sides` when only some sides measure it. */
export type Row = { label: string; unit: string; digits: number; sides?: Side[] };

type Shape = { runs: number; settlesC20: number; burst: number; burstConcurrency: number; blockSeconds: number };

export function createReport() {
  const rows = new Map<string, Row>();
  const samples = new Map<string, Record<Side, number[]>>();
  const details: string[] = [];
  function record(key: string, row: Row, side: Side, value: number) {
    if (!rows.has(key)) rows.set(key, row);
    const entry = samples.get(key) ?? { relay402: [], reference: [] };
    entry[side].push(value);
    samples.set(key, entry);
  }

  function printReport({ runs, settlesC20, burst, burstConcurrency, blockSeconds }: Shape) {
    const format = (value: number, row: Row) =>
      Number.isFinite(value)
        ? `${value.toLocaleString("en-US", { maximumFractionDigits: row.digits, minimumFractionDigits: row.digits })}${row.unit && row.unit !== "/s" ? ` ${row.unit}` : row.unit}`
        : "–";
    console.log(
      `\nrelay402 vs the x402 reference facilitator (@x402/core + @x402/evm 2.27, exact EIP-3009), base devnet, ${runs === 1 ? "one run" : `median of ${runs} runs`}`,
    );
    console.log("\n| figure | x402 reference | relay402 | ratio relay402 / reference |");
    console.log("|---|---|---|---|");
    // Grouped as the issue lists them: verify, settle by mode and concurrency, RPC, CPU, gas, memory, the burst.
    const groups = [
      "verify.",
      "automine.c1.",
      "automine.c20.",
      "1-s blocks.c1.",
      "1-s blocks.c20.",
      "rpc.",
      "cpu.",
      "gas.",
    ];
    const groupOf = (key: string) => {
      const index = groups.findIndex((prefix) => key.startsWith(prefix));
      return index === -1 ? groups.length + (key.startsWith("burst.") ? 1 : 0) : index;
    };
    const ordered = [...rows].sort(([a], [b]) => groupOf(a) - groupOf(b));
    for (const [key, row] of ordered) {
      const entry = samples.get(key) as Record<Side, number[]>;
      const relay = median(entry.relay402);
      const reference = median(entry.reference);
      const ratio =
        Number.isFinite(relay) && Number.isFinite(reference) && reference !== 0
          ? `${(relay / reference).toFixed(2)}×`
          : "";
      console.log(`| ${row.label} | ${format(reference, row)} | ${format(relay, row)} | ${ratio} |`);
    }
    const native = median(samples.get("gas.x402")?.reference ?? []);
    const finite = median(samples.get("gas.relayer.finite")?.relay402 ?? []);
    const max = median(samples.get("gas.relayer.max")?.relay402 ?? []);
    if (Number.isFinite(native) && Number.isFinite(finite))
      console.log(
        `\ngas, relay402's relayer / native EIP-3009 (reference): finite allowance ${(finite / native).toFixed(2)}×, max allowance ${(max / native).toFixed(2)}×`,
      );

    // The issue's targets (ratios relay402 / reference), each checked against the medians above.
    const figure = (key: string, side: Side) => median(samples.get(key)?.[side] ?? []);
    const ratioOf = (key: string) => figure(key, "relay402") / figure(key, "reference");
    const targets: [string, number, (value: number) => boolean, string][] = [
      ["settle p50, c1, automine: ratio ≤ 1.05", ratioOf("automine.c1.p50"), (v) => v <= 1.05, "×"],
      ["settle p50, c1, 1-s blocks: ratio ≤ 1.05", ratioOf("1-s blocks.c1.p50"), (v) => v <= 1.05, "×"],
      ["CPU per settle, c1, automine: ratio ≤ 1.05", ratioOf("cpu.automine.c1"), (v) => v <= 1.05, "×"],
      ["CPU per settle, c1, 1-s blocks: ratio ≤ 1.05", ratioOf("cpu.1-s blocks.c1"), (v) => v <= 1.05, "×"],
      [
        "relay402 JSON-RPC round trips per settle, c1, automine ≤ 3",
        figure("rpc.automine.c1", "relay402"),
        (v) => v <= 3,
        "",
      ],
      [
        "relay402 JSON-RPC round trips per settle, c1, 1-s blocks ≤ 3",
        figure("rpc.1-s blocks.c1", "relay402"),
        (v) => v <= 3,
        "",
      ],
      ["gas, relayer (finite allowance) / native EIP-3009 ≤ 1.20", finite / native, (v) => v <= 1.2, "×"],
      ["/verify throughput ratio ≥ 5", ratioOf("verify.tput"), (v) => v >= 5, "×"],
      [
        "relay402 EOA /verify throughput / reference's x402 /verify ≥ 5",
        figure("verify.eoa.tput", "relay402") / figure("verify.tput", "reference"),
        (v) => v >= 5,
        "×",
      ],
      ["relay402 CPU per EOA verify ≤ 0.15 ms", figure("cpu.verify.eoa", "relay402"), (v) => v <= 0.15, " ms"],
      ["relay402 CPU per x402 verify ≤ 0.15 ms", figure("cpu.verify", "relay402"), (v) => v <= 0.15, " ms"],
      ["peak RSS after /verify and the c1 settles: ratio ≤ 1.0", ratioOf("rss.same"), (v) => v <= 1, "×"],
      [
        `settle ×${settlesC20}, c20, 1-s blocks: all succeed`,
        figure("1-s blocks.c20.ok", "relay402"),
        (v) => v === settlesC20,
        "",
      ],
    ];
    if (burst > 0) {
      const bound = 1.2 * Math.ceil(burst / burstConcurrency) * blockSeconds;
      targets.push(
        [`settle ×${burst}, c${burstConcurrency}: all succeed`, figure("burst.ok", "relay402"), (v) => v === burst, ""],
        [
          `settle ×${burst}, c${burstConcurrency}: no nonce error`,
          figure("burst.nonce", "relay402"),
          (v) => v === 0,
          "",
        ],
        [
          `settle ×${burst}, c${burstConcurrency}: wall ≤ ${bound.toFixed(1)} s`,
          figure("burst.wall", "relay402"),
          (v) => v <= bound,
          " s",
        ],
      );
    }
    // A run of the sponsored lanes alone (`--only sponsored`) measures none of them.
    const measured = targets.filter(([, value]) => Number.isFinite(value));
    if (measured.length) console.log("\ntargets (issues 13 and 23):");
    for (const [label, value, met, unit] of measured.length ? targets : [])
      console.log(
        `  ${Number.isFinite(value) ? (met(value) ? "met    " : "not met") : "n/a    "}  ${label} (${Number.isFinite(value) ? `${value.toFixed(2)}${unit}` : "–"})`,
      );
    if (details.length) console.log(`\n${details.join("\n")}`);
    console.log("\n(one shared machine: figures are indicative, compare the columns with each other)");
  }

  return { record, details, printReport };
}
