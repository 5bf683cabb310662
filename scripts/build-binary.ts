// `bun run build:binary [-- --outfile <path>]`: the single binary, dist/relay402 by default. It runs every
// subcommand, `deploy` included: the contracts' build output (forge build) and x402's published proxy init code are
// embedded in it and registered (src/operator/deploy/embedded-artifacts.ts) before the command line runs.
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEPLOY_ARTIFACTS } from "../src/operator/deploy/embedded-artifacts";
import { buildContracts } from "./devnet/build";

const root = resolve(import.meta.dir, "..");
const { values } = parseArgs({ args: process.argv.slice(2), options: { outfile: { type: "string" } } });
const outfile = resolve(values.outfile ?? join(root, "dist", "relay402"));

buildContracts();
// The entry lives in the repository (so that its imports resolve), named so that no one mistakes it for source.
const entry = join(root, "src", `.binary-entry-${process.pid}.ts`);
const imports = DEPLOY_ARTIFACTS.map((file, i) => `import a${i} from "../${file}" with { type: "file" };`);
const registrations = DEPLOY_ARTIFACTS.map((file, i) => `registerEmbeddedArtifact(${JSON.stringify(file)}, a${i});`);
writeFileSync(
  entry,
  [
    ...imports,
    'import { registerEmbeddedArtifact } from "./operator/deploy/embedded-artifacts";',
    ...registrations,
    // After the registrations: main runs the command line as it is evaluated.
    'await import("./main");',
    "",
  ].join("\n"),
);
try {
  const build = spawnSync(process.execPath, ["build", "--compile", entry, "--outfile", outfile], {
    cwd: root,
    stdio: "inherit",
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  console.log(`built ${outfile}`);
} finally {
  rmSync(entry, { force: true });
}
