// @relay402/client stands alone: its source imports nothing of the service, only the packages its package.json
// names; node:fs stays out of what a browser bundles (only the Node-only entries use it: json-file, the MCP bin);
// and the payments entry never reaches incognito's dependencies, so a payments-only user installs neither snarkjs
// nor the curve code.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const packageDir = resolve(import.meta.dir, "..", "..", "packages", "client");
const source = join(packageDir, "src");
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name) ? [path] : [];
  });
}

/** Every specifier a file imports or re-exports, statically or with import(). */
function specifiersOf(file: string): { specifier: string; dynamic: boolean }[] {
  const text = readFileSync(file, "utf8");
  const statics = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/g)];
  const dynamics = [...text.matchAll(/\bimport\(\s*(?:\/\*[^*]*\*\/\s*)*"([^"]+)"/g)];
  return [
    ...statics.map((match) => ({ specifier: match[1] as string, dynamic: false })),
    ...dynamics.map((match) => ({ specifier: match[1] as string, dynamic: true })),
  ];
}

const packageName = (specifier: string) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] as string);
const files = sourceFiles(source);
const at = (file: string) => relative(packageDir, file);

test("the package imports only its own files, node: builtins and the packages its package.json names", () => {
  expect(files.length).toBeGreaterThan(30);
  const named = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
  const outside: string[] = [];
  for (const file of files) {
    for (const { specifier } of specifiersOf(file)) {
      if (specifier.startsWith(".")) {
        const target = resolve(dirname(file), specifier);
        if (!target.startsWith(`${source}/`)) outside.push(`${at(file)} → ${specifier}`);
        else if (!specifier.endsWith(".js")) outside.push(`${at(file)} → ${specifier} (Node needs the .js extension)`);
      } else if (!specifier.startsWith("node:") && !named.has(packageName(specifier))) {
        outside.push(`${at(file)} → ${specifier}`);
      }
    }
  }
  expect(outside).toEqual([]);
});

test("node: modules are imported statically only by the Node-only entries (incognito/json-file, the MCP bin)", () => {
  const staticNode = files.flatMap((file) =>
    specifiersOf(file)
      .filter(({ specifier, dynamic }) => specifier.startsWith("node:") && !dynamic)
      .map(() => at(file)),
  );
  const outsideNodeEntries = [...new Set(staticNode)].filter(
    (file) => file !== "src/incognito/json-file.ts" && !file.startsWith("src/mcp/"),
  );
  expect(staticNode).toContain("src/incognito/json-file.ts");
  expect(outsideNodeEntries).toEqual([]);
  // The MCP bin's folder is its own: no browser entry imports it.
  const importsMcp = files.filter(
    (file) =>
      !at(file).startsWith("src/mcp/") &&
      specifiersOf(file).some(({ specifier }) => resolve(dirname(file), specifier).startsWith(join(source, "mcp"))),
  );
  expect(importsMcp).toEqual([]);
});

test("the payments entry never reaches snarkjs, ffjavascript, poseidon-lite or @zk-kit/lean-imt", () => {
  const incognitoOnly = ["snarkjs", "ffjavascript", "poseidon-lite", "@zk-kit/lean-imt"];
  const seen = new Set<string>();
  const reached: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const { specifier } of specifiersOf(file)) {
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier).replace(/\.js$/, ".ts"));
      else if (incognitoOnly.includes(packageName(specifier))) reached.push(`${at(file)} → ${specifier}`);
    }
  };
  visit(join(source, "index.ts"));
  expect(seen.size).toBeGreaterThan(10);
  expect(reached).toEqual([]);
});
