import { dirname } from "node:path";
import { freePort } from "../devnet/ports";

/** A child process that reports `{ kind: "ready", url }` over IPC once it listens, and exits on "stop". */
export type Child = {
  pid: number;
  url: string;
  info: Record<string, unknown>;
  stop(): Promise<void>;
  /** Another message over IPC (what a child of startChild understands besides "stop" is its own). */
  send(message: unknown): void;
};

/**
 * Starts `entry` with Bun in a process of its own (so that its CPU time and memory can be read from /proc) and
 * waits for it to listen. On a failed start the child is killed by its pid before the error is thrown.
 */
export async function startChild(
  entry: string,
  env: Record<string, string>,
  timeoutMs = 90_000,
  onMessage: (message: unknown) => void = () => undefined,
): Promise<Child> {
  let onReady: (message: { url: string; info?: Record<string, unknown> }) => void = () => undefined;
  const ready = new Promise<{ url: string; info?: Record<string, unknown> }>((resolve) => (onReady = resolve));
  // BENCH_CPU_PROF_DIR=<dir>: each child writes a CPU profile (.cpuprofile and markdown) there when it stops.
  const profile = process.env.BENCH_CPU_PROF_DIR
    ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
    : [];
  const child = Bun.spawn([process.execPath, ...profile, entry], {
    // Without the bench's own raised fetch limit (vs-x402.ts): a facilitator runs with Bun's default, as in production.
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: undefined, ...env },
    stdout: "inherit",
    stderr: "inherit",
    ipc: (message: { kind?: string; url?: string; info?: Record<string, unknown> }) => {
      if (message?.kind === "ready" && message.url) onReady({ url: message.url, info: message.info });
      else onMessage(message);
    },
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      child.send("stop");
    } catch {}
    await Promise.race([child.exited, Bun.sleep(5000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  try {
    const message = await Promise.race([
      ready,
      child.exited.then((code) => {
        throw new Error(`${entry} exited with ${code} before listening`);
      }),
      Bun.sleep(timeoutMs).then(() => {
        throw new Error(`${entry} did not listen within ${timeoutMs} ms`);
      }),
    ]);
    return { pid: child.pid, url: message.url, info: message.info ?? {}, stop, send: (each) => child.send(each) };
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
}

/**
 * relay402 as an operator deploys it: the single binary (`bun run build:binary`), `start` with its config file in
 * RELAY402_CONFIG, listening on a free port, ready once /health answers. Its logs go nowhere (the bench reads its
 * answers); its errors to this terminal. Stopped with SIGTERM (a graceful shutdown), then SIGKILL after 5 s.
 */
export async function startBinaryChild(command: string[], configFile: string, timeoutMs = 90_000): Promise<Child> {
  const port = await freePort();
  const child = Bun.spawn(command, {
    cwd: dirname(configFile),
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: String(port), RELAY402_CONFIG: configFile },
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await Promise.race([child.exited, Bun.sleep(5000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  const deadline = Date.now() + timeoutMs;
  while (child.exitCode === null && Date.now() < deadline) {
    const up = await fetch(`${url}/health`)
      .then((response) => response.ok)
      .catch(() => false);
    if (up) return { pid: child.pid, url, info: {}, stop, send: () => undefined };
    await Bun.sleep(100);
  }
  child.kill("SIGKILL");
  throw new Error(
    `${command.join(" ")} ${child.exitCode === null ? `did not answer /health within ${timeoutMs} ms` : `exited with ${child.exitCode}`}`,
  );
}
