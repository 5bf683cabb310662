// Builds dist/: ESM JavaScript with `bun build` (dependencies and peers stay imports, for the installer to
// resolve) and the .d.ts with tsc. One output file per entry of package.json's exports, src's folders kept, so
// dist/incognito/index.js sits as deep as its source and finds ../../circuit the same way.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";

const root = join(import.meta.dir, "..");
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });

const wire = [...new Glob("src/wire/**/*.ts").scanSync({ cwd: root })].filter(
  (file) => !file.endsWith(".test.ts") && !file.endsWith(".d.ts"),
);
const entrypoints = [
  "src/index.ts",
  "src/incognito/index.ts",
  "src/incognito/json-file.ts",
  "src/mcp/index.ts",
  "src/mcp/main.ts",
  ...wire,
];

const result = await Bun.build({
  entrypoints: entrypoints.map((file) => join(root, file)),
  root: join(root, "src"),
  outdir: dist,
  // Plain ESM for Node ≥ 20; browsers get it through their bundler, which resolves viem itself.
  target: "node",
  format: "esm",
  splitting: true,
  packages: "external",
  naming: { entry: "[dir]/[name].[ext]", chunk: "chunks/[name]-[hash].[ext]" },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}

const tsc = Bun.spawnSync(
  [join(root, "..", "..", "node_modules", ".bin", "tsc"), "-p", root, "--emitDeclarationOnly"],
  {
    stdout: "inherit",
    stderr: "inherit",
  },
);
if (tsc.exitCode !== 0) process.exit(tsc.exitCode ?? 1);
console.log(`built ${result.outputs.length} files and their .d.ts in ${dist}`);
