import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in ms (10 ms resolution). */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may contain spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** The peak resident set of a process so far (VmHWM), in MiB. */
export function peakRssMiBOf(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Of `pids`, the process started with `--port <port>` (anvil's command line), if any. */
export function pidListeningOn(pids: number[], port: string): number | undefined {
  return pids.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").includes(`--port ${port}`);
    } catch {
      return false;
    }
  });
}

/** CPU time (user + system) of each live thread of a process so far, in ms, by thread id, with the thread's name. */
export function threadCpuMsOf(pid: number): Map<string, { name: string; ms: number }> {
  const threads = new Map<string, { name: string; ms: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
    threads.set(tid, { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), ms });
  }
  return threads;
}

/**
 * The CPU time each thread name used between two readings of threadCpuMsOf: a thread started since counts in full;
 * one that ended since is not counted (its time is gone from /proc), so the names may sum to less than the process.
 */
export function threadCpuDelta(
  before: Map<string, { name: string; ms: number }>,
  after: Map<string, { name: string; ms: number }>,
): Map<string, number> {
  const byName = new Map<string, number>();
  for (const [tid, { name, ms }] of after) byName.set(name, (byName.get(name) ?? 0) + ms - (before.get(tid)?.ms ?? 0));
  return byName;
}

/**
 * The host's CPU time so far over all its cores (/proc/stat's first line), in ms: busy (every state but idle and
 * iowait) and in all. Two readings apart say how busy the host was in between, other processes included.
 */
export function hostCpuMs(): { busyMs: number; totalMs: number } {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  // user nice system idle iowait irq softirq steal (guest time is already counted in user).
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busyMs: ((total - idle) * 1000) / TICKS_PER_SECOND, totalMs: (total * 1000) / TICKS_PER_SECOND };
}
