import { resolve } from "node:path";

/**
 * The single binary, built by `bun run build:binary`'s script (scripts/build-binary.ts) into `outfile`, contract
 * artifacts embedded; throws with the build's output if it fails.
 */
export function buildBinary(outfile: string): string {
  const build = Bun.spawnSync([process.execPath, "scripts/build-binary.ts", "--outfile", outfile], {
    cwd: resolve(import.meta.dir, ".."),
    stdout: "pipe",
    stderr: "pipe",
  });
  if (build.exitCode !== 0) throw new Error(`the binary did not build:\n${build.stderr.toString()}`);
  return outfile;
}
