// `bun run test`: the forge suite, then the bun suite (which starts its own devnet), then one line
// `N passed, N failed` that CI can read. Exits non-zero when anything failed or a runner crashed.
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const forge = join(root, "node_modules/@foundry-rs/forge-linux-amd64/bin/forge");
const bun = process.execPath;

function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const tee = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
      output += chunk.toString();
      stream.write(chunk);
    };
    child.stdout.on("data", tee(process.stdout));
    child.stderr.on("data", tee(process.stderr));
    child.on("close", (code) => done({ code: code ?? 1, output }));
  });
}

const count = (output: string, pattern: RegExp) => {
  const match = output.match(pattern);
  return match ? Number(match[1]) : 0;
};

const extraArgs = process.argv.slice(2);
const forgeRun = extraArgs.length ? { code: 0, output: "" } : await run(forge, ["test"]);
// The committed gas snapshot is part of the suite: a gas change shows up as one failure until re-snapshotted.
const snapshotRun = extraArgs.length ? { code: 0, output: "" } : await run(forge, ["snapshot", "--check"]);
const snapshotChecked = extraArgs.length === 0;
const forgePassed = count(forgeRun.output, /(\d+) tests passed/) + (snapshotChecked && snapshotRun.code === 0 ? 1 : 0);
const forgeFailed = count(forgeRun.output, /tests passed, (\d+) failed/) + (snapshotRun.code !== 0 ? 1 : 0);

const bunRun = await run(bun, ["test", ...extraArgs]);
const bunPassed = count(bunRun.output, /^\s*(\d+) pass$/m);
const bunFailed = count(bunRun.output, /^\s*(\d+) fail$/m);

const passed = forgePassed + bunPassed;
// A runner that crashed without reporting counts as one failure so the summary cannot read green.
const failed =
  forgeFailed +
  bunFailed +
  (forgeRun.code !== 0 && forgeFailed === 0 ? 1 : 0) +
  (bunRun.code !== 0 && bunFailed === 0 ? 1 : 0);

console.log(`\nforge: ${forgePassed} passed, ${forgeFailed} failed; bun: ${bunPassed} passed, ${bunFailed} failed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
