import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..", "..");

/** `forge build` (a no-op when nothing changed) so that the devnet deploys what is in contracts/. */
export function buildContracts(): void {
  const forge = join(root, "node_modules/@foundry-rs/forge-linux-amd64/bin/forge");
  const result = spawnSync(forge, ["build"], { cwd: root, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (result.status !== 0) throw new Error(`forge build failed:\n${result.stderr}`);
}
