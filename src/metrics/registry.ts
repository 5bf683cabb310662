/**
 * A small Prometheus registry: counters, gauges and histograms with labels, written out in the text exposition
 * format (version 0.0.4) by hand, so that no client library is needed. Label values come from the code (route
 * patterns, network names, addresses), never from a request's raw path or body: every label set is bounded.
 */

export type Labels = Record<string, string>;

type Family = { name: string; help: string; type: "counter" | "gauge" | "histogram"; render(): string[] };

/** Seconds buckets of the settle histogram: a settle spans from one sync-send receipt (tens of ms) to a timeout. */
export const SECONDS_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/** Label values escaped as the text format wants them (backslash, double quote, newline). */
export function escapeLabelValue(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return "";
  return `{${entries.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(",")}}`;
}

/** A number as the text format spells it; a bigint (wei) is written exactly. */
function formatValue(value: number | bigint): string {
  if (typeof value === "bigint") return value.toString();
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

const keyOf = (labels: Labels) => JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));

export class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(readonly name: string) {}
  inc(labels: Labels = {}, by = 1): void {
    const key = keyOf(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { labels, value: by });
  }
  get(labels: Labels = {}): number {
    return this.values.get(keyOf(labels))?.value ?? 0;
  }
  render(): string[] {
    return [...this.values.values()].map(({ labels, value }) => `${this.name}${formatLabels(labels)} ${value}`);
  }
}

export class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly buckets: readonly number[],
  ) {}
  observe(labels: Labels, value: number): void {
    const key = keyOf(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= (this.buckets[i] as number)) entry.counts[i]! += 1;
    entry.sum += value;
    entry.count += 1;
  }
  count(labels: Labels = {}): number {
    return this.series.get(keyOf(labels))?.count ?? 0;
  }
  render(): string[] {
    const lines: string[] = [];
    for (const { labels, counts, sum, count } of this.series.values()) {
      this.buckets.forEach((bound, i) => {
        lines.push(`${this.name}_bucket${formatLabels({ ...labels, le: formatValue(bound) })} ${counts[i]}`);
      });
      lines.push(`${this.name}_bucket${formatLabels({ ...labels, le: "+Inf" })} ${count}`);
      lines.push(`${this.name}_sum${formatLabels(labels)} ${formatValue(sum)}`);
      lines.push(`${this.name}_count${formatLabels(labels)} ${count}`);
    }
    return lines;
  }
}

/** One gauge sample, read when the registry is rendered. */
export type GaugeSample = { labels?: Labels; value: number | bigint };

export class Registry {
  private readonly families: Family[] = [];

  counter(name: string, help: string): Counter {
    const counter = new Counter(name);
    this.families.push({ name, help, type: "counter", render: () => counter.render() });
    return counter;
  }

  histogram(name: string, help: string, buckets: readonly number[] = SECONDS_BUCKETS): Histogram {
    const histogram = new Histogram(name, buckets);
    this.families.push({ name, help, type: "histogram", render: () => histogram.render() });
    return histogram;
  }

  /**
   * A gauge whose samples are read at render time by `collect` (synchronously: whatever needs the network is read
   * before rendering, see service-metrics.ts).
   */
  gauge(name: string, help: string, collect: () => GaugeSample[]): void {
    this.families.push({
      name,
      help,
      type: "gauge",
      render: () => collect().map(({ labels, value }) => `${name}${formatLabels(labels ?? {})} ${formatValue(value)}`),
    });
  }

  /** The text exposition: every family's # HELP and # TYPE, then its samples; ends with a newline. */
  render(): string {
    const lines: string[] = [];
    for (const family of this.families) {
      lines.push(`# HELP ${family.name} ${family.help.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")}`);
      lines.push(`# TYPE ${family.name} ${family.type}`);
      lines.push(...family.render());
    }
    return `${lines.join("\n")}\n`;
  }
}

/** The content type of the text exposition format. */
export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
