#!/usr/bin/env node
// forge cannot download a native solc here, so it runs solc-js through this wrapper,
// which answers the two calls forge makes: `--version` and `--standard-json` (input on stdin).
const fs = require("node:fs");
const path = require("node:path");
const solc = require("solc");

const args = process.argv.slice(2);
if (args.includes("--version")) {
  const v = solc.version(); // e.g. 0.8.37+commit.xxxx.Emscripten.clang
  process.stdout.write(
    `solc, the solidity compiler commandline interface\nVersion: ${v.replace(".Emscripten.clang", ".Linux.g++")}\n`,
  );
  process.exit(0);
}
if (!args.includes("--standard-json")) {
  process.stderr.write("this wrapper only supports --version and --standard-json\n");
  process.exit(1);
}

const basePathIdx = args.indexOf("--base-path");
const roots = [process.cwd()];
if (basePathIdx >= 0) roots.unshift(args[basePathIdx + 1]);
for (let i = 0; i < args.length; i++) if (args[i] === "--include-path") roots.push(args[i + 1]);

function findImports(importPath) {
  for (const root of roots) {
    const full = path.resolve(root, importPath);
    if (fs.existsSync(full)) return { contents: fs.readFileSync(full, "utf8") };
  }
  return { error: `File not found: ${importPath}` };
}

const input = fs.readFileSync(0, "utf8");
process.stdout.write(solc.compile(input, { import: findImports }));
