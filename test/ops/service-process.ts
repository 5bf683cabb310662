import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { encodeConfig } from "../../src/config/load";
import type { ConfigInput } from "../../src/config/schema";
import { getTestDevnet } from "../support/devnet";

const root = resolve(import.meta.dir, "..", "..");

export type ServiceProcess = {
  url: string;
  pid: number;
  adminApiKey: string;
  child: ChildProcess;
  /** Everything the process wrote (JSON log lines). */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL if it still runs (for `finally`). */
  kill(): Promise<void>;
};

/**
 * The service as production runs it: `bun src/main.ts` in a process of its own, its config from a file
 * (RELAY402_CONFIG) and `env` (secrets such as WEBHOOK_SECRET_<ID>), on the test devnet with the given SQLite file
 * or PostgreSQL database. Resolves once /health answers.
 */
export async function startServiceProcess(
  dir: string,
  overrides: Partial<ConfigInput> & ({ databasePath: string } | { databaseUrl: string }),
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  const port = await freePort();
  const config = encodeConfig(configFromManifest(getTestDevnet().devnet.manifest, { port, ...overrides }));
  const file = join(dir, `relay402-${port}.json`);
  writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, ["src/main.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH, RELAY402_CONFIG: file, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once("exit", (code, signal) => done({ code, signal })),
  );
  let stopped = false;
  void exited.then(() => (stopped = true));
  const url = `http://127.0.0.1:${port}`;
  const handle: ServiceProcess = {
    url,
    pid: child.pid as number,
    adminApiKey: config.adminApiKey,
    child,
    output: () => output,
    exited,
    async kill() {
      if (stopped) return;
      child.kill("SIGKILL");
      await exited;
    },
  };
  for (let attempt = 0; attempt < 300; attempt++) {
    if (stopped) throw new Error(`the service exited at start:\n${output}`);
    const up = await fetch(`${url}/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (up) return handle;
    await Bun.sleep(100);
  }
  await handle.kill();
  throw new Error(`the service did not answer /health:\n${output}`);
}
