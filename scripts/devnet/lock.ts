import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type Lock = { release(): void; recordPids(pids: number[]): void };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * One devnet per folder: a second start while the first runs fails with a clear message.
 * A lock left by a parent that died is taken over (its pid is gone).
 */
export function acquireLock(dir: string): Lock {
  const path = join(dir, "devnet.lock");
  if (existsSync(path)) {
    const holder = JSON.parse(readFileSync(path, "utf8")) as { pid: number; children?: number[] };
    if (isAlive(holder.pid)) {
      throw new Error(
        `a devnet is already running from ${dir} (pid ${holder.pid}); stop it with Ctrl-C first, or use another folder/ports`,
      );
    }
    // The previous parent crashed; its children may still run (Bun does not reap them). Stop them by pid.
    for (const child of holder.children ?? []) if (isAlive(child)) process.kill(child, "SIGTERM");
  }
  writeFileSync(path, JSON.stringify({ pid: process.pid }));
  return {
    recordPids(children) {
      writeFileSync(path, JSON.stringify({ pid: process.pid, children }));
    },
    release() {
      rmSync(path, { force: true });
    },
  };
}
