// The import graph of src/, scripts/ and the client package has no circle (type-only imports included): a circle means two modules
// that can only be understood, tested and packaged together.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "..", "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sourceFiles(path);
    return /\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name) ? [path] : [];
  });
}

const clientSource = join(root, "packages", "client", "src");

/**
 * The project files a module imports: relative specifiers (the package's `./x.js` is its `./x.ts`) and the client
 * package's own (`@relay402/client/...`, its source in the repository); other packages are not part of the graph.
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+|@relay402\/client(?:\/[^"]+)?)"/g),
  ].map((match) => match[1] as string);
  return specifiers.flatMap((specifier) => {
    const base = specifier.startsWith("@relay402/client")
      ? join(clientSource, specifier.slice("@relay402/client".length))
      : resolve(dirname(file), specifier.replace(/\.js$/, ""));
    const found = [base, `${base}.ts`, join(base, "index.ts")].find(
      (path) => existsSync(path) && statSync(path).isFile(),
    );
    return found?.endsWith(".ts") ? [found] : [];
  });
}

/** Every circle found by a depth-first walk, each as the list of files around it. */
function circles(files: string[]): string[][] {
  const graph = new Map(files.map((file) => [file, importsOf(file)]));
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") found.push(stack.slice(stack.indexOf(next)).concat(next));
      else if (!state.has(next) && graph.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

test("src/, scripts/ and packages/client import each other without a circle", () => {
  const files = [
    ...sourceFiles(join(root, "src")),
    ...sourceFiles(join(root, "scripts")),
    ...sourceFiles(clientSource),
  ];
  expect(files.length).toBeGreaterThan(100);
  const found = circles(files).map((circle) => circle.map((file) => relative(root, file)).join(" → "));
  expect(found).toEqual([]);
});
