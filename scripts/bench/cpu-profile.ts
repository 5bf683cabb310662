// A Bun `--cpu-prof` profile (the Chrome DevTools .cpuprofile format) read back: the self time of each function
// or file over a window of time, for scripts/bench/profile-settle.ts.
import { readFileSync } from "node:fs";

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
/**
 * Timestamps in µs since the epoch (Bun's). A sample is taken while the JavaScript thread is busy: running
 * JavaScript, or inside a native call made from it, which includes time blocked there (an SQLite commit waiting for
 * its fsync): the profile's time is the thread's busy time, not its CPU time (/proc has that).
 */
export type CpuProfile = { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] };

export const readProfile = (path: string): CpuProfile => JSON.parse(readFileSync(path, "utf8"));

/** A path worth printing: from the package's folder in node_modules, or from the repository's src/ or scripts/. */
function shortPath(url: string): string {
  if (!url) return "(native)";
  const path = url.replace(/^file:\/\//, "");
  const modules = path.lastIndexOf("/node_modules/");
  if (modules !== -1) return path.slice(modules + "/node_modules/".length);
  const repository = path.search(/\/(src|scripts|packages)\//);
  return repository === -1 ? path : path.slice(repository + 1);
}

const nameOf = (frame: CallFrame) =>
  `${frame.functionName || "(anonymous)"} ${shortPath(frame.url)}:${frame.lineNumber + 1}`;

/** The repository's own code (src/), not a dependency's nor Bun's. */
const isOurs = (frame: CallFrame) => /\/src\//.test(frame.url) && !frame.url.includes("/node_modules/");

/**
 * Time by function (name, file and line), by file, or by the nearest function of src/ on the stack (the
 * repository's code that caused the work, whatever library or native code ran it: "our caller"), over the samples
 * taken in [fromMs, toMs] (epoch ms), most first. A sample stands for the time until the next one; a gap of more
 * than 10 intervals is idle time, not the sample's, and counts as one interval.
 */
export function selfTimeBy(
  profile: CpuProfile,
  window: { fromMs: number; toMs: number },
  by: "function" | "file" | "our caller",
): { name: string; ms: number }[] {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const ourCaller = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const frame = nodes.get(at);
      if (frame && isOurs(frame)) return nameOf(frame);
    }
    return "(no src/ function on the stack: the event loop, timers, the HTTP server)";
  };
  const sorted = [...profile.timeDeltas].sort((a, b) => a - b);
  const interval = sorted[sorted.length >> 1] ?? 1000;
  const totals = new Map<string, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < window.fromMs * 1000 || at > window.toMs * 1000) continue;
    const next = profile.timeDeltas[i + 1] ?? interval;
    const us = next > 10 * interval ? interval : next;
    const id = profile.samples[i] as number;
    const frame = nodes.get(id);
    if (!frame) continue;
    const name = by === "file" ? shortPath(frame.url) : by === "function" ? nameOf(frame) : ourCaller(id);
    totals.set(name, (totals.get(name) ?? 0) + us / 1000);
  }
  return [...totals].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}
