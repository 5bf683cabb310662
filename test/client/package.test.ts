// @relay402/client as its users get it: built, packed by `npm pack`, installed with npm into a Node project outside
// the repository next to the same viem (and snarkjs, and x402's fetch wrapper) and run by `node`, not Bun, against
// the devnet. The chain judges: each payee holds exactly what was paid to it. Its MCP bin starts and answers.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Address } from "viem";
import { chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { x402Shop } from "../support/x402-shop";
import { listeningService } from "../x402/support";

const repo = join(import.meta.dir, "..", "..");
const packageDir = join(repo, "packages", "client");
const versionOf = (name: string) =>
  (JSON.parse(readFileSync(join(repo, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

/** Children still running: a test that times out leaves its `run` waiting, so afterAll stops them by PID. */
const running = new Set<number>();
const stopRunning = () => {
  for (const pid of running) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  running.clear();
};

/** Runs a child to its end; it is killed by its PID if it is still running then. */
async function run(command: string[], cwd: string, env: Record<string, string> = {}) {
  const child = Bun.spawn(command, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  running.add(child.pid);
  try {
    const [code, out, err] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}:\n${err}\n${out}`);
    return out;
  } finally {
    running.delete(child.pid);
    if (child.exitCode === null) process.kill(child.pid, "SIGKILL");
  }
}

// The shop: one item on base, priced in the devnet's EIP-3009 token, relay402 as its x402 facilitator.
const relay = listeningService();
const baseToken = chainOf("base").token.address;
const price = 1_250_000n;
const payTo = randomAddress();
const shop = x402Shop({
  facilitator: relay.facilitator(),
  network: "eip155:8453",
  payTo,
  asset: baseToken,
  amount: price,
  extra: { name: "USD Coin", version: "2" },
});

// The buyer's project: the same viem as the repository's, snarkjs for incognito, x402's fetch wrapper, and the MCP
// server's optional peers (the SDK, zod, x402's core and EVM scheme: a payments-only user installs none of them).
// Kept between runs (keyed by this checkout and those versions) so that npm installs them once; the client is
// installed from the new tarball every run.
const pinned = ["viem", "snarkjs", "@x402/core", "@x402/evm", "@x402/fetch", "@modelcontextprotocol/sdk", "zod"].map(
  (name) => `${name}@${versionOf(name)}`,
);
const project = join(tmpdir(), `relay402-client-package-${Bun.hash(`${repo} ${pinned.join(" ")}`).toString(16)}`);
const npmInstall = (...packages: string[]) =>
  run(
    [
      "npm",
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--loglevel=error",
      ...packages,
    ],
    project,
  );

afterAll(() => {
  stopRunning();
  shop.stop();
  relay.stop();
});

describe("@relay402/client from its npm tarball, under node", () => {
  test("an EOA payment, a smart-wallet payment, an incognito round trip, an x402 purchase, and the MCP bin answers", async () => {
    mkdirSync(project, { recursive: true });
    if (!existsSync(join(project, "package.json"))) {
      writeFileSync(join(project, "package.json"), JSON.stringify({ name: "buyer", private: true, type: "module" }));
    }
    // Built once here (npm pack's prepack would build again), while npm installs the buyer's other dependencies.
    await Promise.all([run([process.execPath, "scripts/build.ts"], packageDir), npmInstall(...pinned)]);
    const packed = JSON.parse(
      await run(["npm", "pack", "--json", "--ignore-scripts", "--pack-destination", project], packageDir),
    ) as { filename: string; files: { path: string }[] }[];
    const files = packed[0]!.files.map((file) => file.path);
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/incognito/index.d.ts");
    expect(files).toContain("circuit/unshield.zkey");
    expect(files.filter((file) => file.startsWith("src/") || file.endsWith(".test.js"))).toEqual([]);

    const tarball = join(project, packed[0]!.filename);
    try {
      await npmInstall(tarball, ...pinned);
    } finally {
      rmSync(tarball, { force: true });
    }
    writeFileSync(join(project, "buyer.mjs"), readFileSync(join(import.meta.dir, "package-buyer.mjs")));

    const bsc = chainOf("bsc");
    const payer = await freshPayer("bsc");
    const x402Payer = await freshPayer("base");
    const out = await run(["node", "buyer.mjs"], project, {
      RELAY402_URL: relay.url,
      ADMIN_API_KEY: relay.config.adminApiKey ?? "",
      BSC_RPC_URL: bsc.info.rpcUrl,
      PAYER_KEY: payer.key,
      X402_PAYER_KEY: x402Payer.key,
      ITEM_URL: shop.itemUrl,
    });
    const result = JSON.parse(out.trim().split("\n").at(-1)!) as {
      token: Address;
      eoa: { to: Address; value: string };
      wallet: { to: Address; value: string };
      incognito: {
        to: Address;
        value: string;
        packagedCircuit: { id: string; zkeyBytes: number };
        poolCircuit: string;
      };
      x402: { status: number; body: string };
    };
    const unit = 10n ** BigInt(bsc.token.decimals);
    expect(result.token).toBe(bsc.token.address);
    expect(await tokenBalance("bsc", result.token, result.eoa.to)).toBe(unit);
    expect(await tokenBalance("bsc", result.token, result.wallet.to)).toBe(2n * unit);
    expect(await tokenBalance("bsc", result.token, result.incognito.to)).toBe(2n * unit);
    // The unshield proved with the circuit shipped in the tarball (found from node_modules), the pool's setup.
    const shipped = JSON.parse(readFileSync(join(packageDir, "circuit", "circuit.json"), "utf8"));
    expect(result.incognito.packagedCircuit).toEqual({ id: shipped.id, zkeyBytes: shipped.zkey.bytes });
    expect(result.incognito.poolCircuit).toBe(shipped.id);
    expect(result.x402).toEqual({ status: 200, body: "the item" });
    expect(await tokenBalance("base", baseToken, payTo)).toBe(price);

    // The MCP server's bin, as an agent's host starts it from the installed package, under node.
    expect(files).toContain("dist/mcp/main.js");
    writeFileSync(
      join(project, "mcp.json"),
      JSON.stringify({ rpcUrls: { bsc: bsc.info.rpcUrl }, limits: [{ network: "bsc", token: bsc.token.address }] }),
    );
    const transport = new StdioClientTransport({
      command: "node",
      args: [join(project, "node_modules", ".bin", "relay402-mcp")],
      env: {
        PATH: process.env.PATH ?? "",
        RELAY402_URL: relay.url,
        RELAY402_PRIVATE_KEY: payer.key,
        RELAY402_MCP_CONFIG: join(project, "mcp.json"),
      },
      stderr: "pipe",
    });
    const mcp = new Client({ name: "package-test", version: "0" });
    try {
      await mcp.connect(transport);
      if (transport.pid !== null) running.add(transport.pid);
      const listed = (await mcp.callTool({ name: "relay402_networks" })) as { content: { text: string }[] };
      expect(JSON.parse(listed.content[0]?.text ?? "{}").address).toBe(payer.address);
    } finally {
      await mcp.close().catch(() => undefined);
      stopRunning();
    }
  }, 240_000);
});
