// What `relay402 start` loads on one instance on SQLite: not the PostgreSQL stores (src/db/postgres/stores.ts loads
// them when the database is PostgreSQL), not the MCP server (`relay402 mcp` loads it), not snarkjs (the first
// incognito proof check loads it). Each module loaded stays in memory for the life of the process.
import { expect, test } from "bun:test";
import { resolve } from "node:path";

const root = resolve(import.meta.dir, "..", "..");

/** The files loaded by importing `entries` in a fresh Bun process (no service started). */
function loadedBy(entries: string[]): string[] {
  const script = `${entries.map((entry) => `await import(${JSON.stringify(resolve(root, entry))});`).join("")}
console.log(JSON.stringify(Object.keys(require.cache)));`;
  const child = Bun.spawnSync([process.execPath, "-e", script], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (child.exitCode !== 0) throw new Error(`the import failed:\n${child.stderr.toString()}`);
  return JSON.parse(child.stdout.toString()) as string[];
}

test("the command line and the service load no PostgreSQL store, MCP server or snarkjs before they are used", () => {
  const loaded = loadedBy(["src/cli/commands.ts", "src/server.ts"]);
  // The import worked: the service's own modules are there.
  expect(loaded).toContain(resolve(root, "src/db/stores.ts"));
  expect(loaded).toContain(resolve(root, "src/x402/flow.ts"));
  const unwanted = loaded.filter((path) =>
    /-postgres\.ts$|\/src\/db\/postgres\/|@modelcontextprotocol\/sdk|\/snarkjs\/|\/ffjavascript\//.test(path),
  );
  expect(unwanted).toEqual([]);
});
