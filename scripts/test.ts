// `bun run test`: the forge suite, then the bun suite in two processes at once (each starts its own devnet and
// PostgreSQL; most of a devnet test's time is waiting for blocks and receipts, so two share the 2 cores of CI
// well), then one line `N passed, N failed` that CI can read. Exits non-zero when anything failed or a runner
// crashed. With arguments, one `bun test` with those arguments, as before.
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const forge = join(root, "node_modules/@foundry-rs/forge-linux-amd64/bin/forge");
const bun = process.execPath;

function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  /** Print the output when the run ends, not as it comes: two runs at once would interleave their lines. */
  buffered = false,
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
      if (!buffered) stream.write(chunk);
    };
    child.stdout.on("data", tee(process.stdout));
    child.stderr.on("data", tee(process.stderr));
    child.on("close", (code) => {
      if (buffered) process.stdout.write(output);
      done({ code: code ?? 1, output });
    });
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

/**
 * The bun suite's files in three shards of about equal time, run at once: their tests mostly wait (on blocks,
 * leases, receipts, receivers), so three shards on two cores finish sooner than two. The first shards take these
 * folders; the last takes everything else. Every test file is in exactly one shard, and each shard starts its own
 * devnet (and PostgreSQL when a file of it needs one).
 */
const SHARDS = [
  ["test/chain/", "test/incognito/", "test/ops/", "test/onboarding/"],
  ["test/webhooks/", "test/lifecycle/", "test/lookup/", "test/payments/"],
];

function testFiles(): string[] {
  // The client package's unit tests sit beside its source, as the service's do.
  const files = ["{src,test}/**/*.test.ts", "packages/*/src/**/*.test.ts"].flatMap((pattern) => [
    ...new Bun.Glob(pattern).scanSync({ cwd: root }),
  ]);
  return files.sort();
}

async function runBunSuite(): Promise<{ code: number; output: string }[]> {
  if (extraArgs.length) return [await run(bun, ["test", ...extraArgs])];
  const files = testFiles();
  const shards = SHARDS.map((folders) => files.filter((file) => folders.some((folder) => file.startsWith(folder))));
  shards.push(files.filter((file) => !shards.some((shard) => shard.includes(file))));
  const sizes = shards.map((shard) => shard.length).join(", ");
  console.log(`bun test: ${files.length} files in ${shards.length} shards of ${sizes}, run at once`);
  return Promise.all(shards.map((shard) => run(bun, ["test", ...shard.map((file) => `./${file}`)], {}, true)));
}

const bunRuns = await runBunSuite();
const bunPassed = bunRuns.reduce((sum, each) => sum + count(each.output, /^\s*(\d+) pass$/m), 0);
const bunFailed = bunRuns.reduce((sum, each) => sum + count(each.output, /^\s*(\d+) fail$/m), 0);

const passed = forgePassed + bunPassed;
// A runner that crashed without reporting counts as one failure so the summary cannot read green.
const failed =
  forgeFailed +
  bunFailed +
  (forgeRun.code !== 0 && forgeFailed === 0 ? 1 : 0) +
  bunRuns.filter((each) => each.code !== 0 && count(each.output, /^\s*(\d+) fail$/m) === 0).length;

console.log(`\nforge: ${forgePassed} passed, ${forgeFailed} failed; bun: ${bunPassed} passed, ${bunFailed} failed`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
