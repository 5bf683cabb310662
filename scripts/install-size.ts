// `bun run size:install`: what an install weighs. The development install is this checkout's node_modules (after
// `bun install --frozen-lockfile`); the production install is made here, in a temporary folder, from the same
// package.json and bun.lock with `--production` (no devnet, no Alto, no compilers), which is what an operator
// running `bun run start` from a clone needs. Prints both and the largest packages of each.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");

/** Size of a folder in MiB of disk use (as `du -sm` counts them). */
function sizeMb(path: string): number {
  const result = spawnSync("du", ["-sk", path], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`du ${path}: ${result.stderr}`);
  return Math.round(Number(result.stdout.split("\t")[0]) / 1024);
}

/** The packages of a node_modules folder (scoped ones one level down), largest first. */
function largest(modules: string, count: number): [string, number][] {
  const packages = readdirSync(modules)
    .filter((name) => !name.startsWith("."))
    .flatMap((name) =>
      name.startsWith("@") ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name],
    );
  return packages
    .map((name) => [name, sizeMb(join(modules, name))] as [string, number])
    .sort(([, a], [, b]) => b - a)
    .slice(0, count);
}

function report(label: string, modules: string) {
  const packages = readdirSync(modules).filter((name) => !name.startsWith(".")).length;
  console.log(`\n${label}: ${sizeMb(modules).toLocaleString("en-US")} MiB in ${modules}`);
  console.log(`  top-level entries: ${packages}; largest packages (MiB):`);
  for (const [name, mb] of largest(modules, 10)) console.log(`    ${String(mb).padStart(5)}  ${name}`);
}

/** packages/<name>/package.json of every workspace package. */
const workspaceManifests = () =>
  readdirSync(join(root, "packages"))
    .map((name) => join("packages", name, "package.json"))
    .filter((file) => existsSync(join(root, file)));

const devModules = join(root, "node_modules");
if (!existsSync(devModules)) throw new Error("no node_modules here: run `npx -y bun@1.4.5 install --frozen-lockfile`");
report("development install (bun install --frozen-lockfile)", devModules);

const dir = mkdtempSync(join(tmpdir(), "relay402-install-"));
try {
  // The install's inputs: the manifests (the root's and the workspace packages' it links), the lockfile, and
  // bunfig.toml (its hoisted linker).
  for (const file of ["package.json", "bun.lock", "bunfig.toml", ...workspaceManifests()]) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(root, file), join(dir, file));
  }
  const install = spawnSync(process.execPath, ["install", "--production", "--frozen-lockfile"], {
    cwd: dir,
    encoding: "utf8",
  });
  if (install.status !== 0) throw new Error(`production install failed: ${install.stderr}`);
  report("production install (bun install --production --frozen-lockfile)", join(dir, "node_modules"));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
