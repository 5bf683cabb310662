import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { encodeConfig } from "../../src/config/load";
import { VERSION } from "../../src/version";
import { getTestDevnet } from "../support/devnet";

const root = resolve(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "relay402-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `bun src/main.ts <args>` with only PATH and `env` (no RELAY402_CONFIG of the caller's). */
function relay402(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(join(root, "node_modules", ".bin", "bun"), ["src/main.ts", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function devnetConfigFile(name: string, change?: (config: Record<string, any>) => void): Promise<string> {
  const config = encodeConfig(
    configFromManifest(getTestDevnet().devnet.manifest, {
      port: await freePort(),
      databasePath: join(dir, `${name}.sqlite`),
    }),
  ) as Record<string, any>;
  change?.(config);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

describe("the relay402 command line", () => {
  test("--help lists the commands; --version prints the version, on every command", () => {
    const help = relay402(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: relay402 [command] [options]");
    expect(help.stdout).toMatch(/\n {2}start +run the service/);
    expect(help.stdout).toMatch(/\n {2}check +run every check of the start/);
    for (const args of [["--version"], ["start", "--version"], ["check", "--version"]]) {
      const version = relay402(args);
      expect(version.status).toBe(0);
      expect(version.stdout.trim()).toBe(`relay402 ${VERSION}`);
    }
    const checkHelp = relay402(["check", "--help"]);
    expect(checkHelp.status).toBe(0);
    expect(checkHelp.stdout).toStartWith("Usage: relay402 check");
    expect(relay402(["start", "--help"]).stdout).toStartWith("Usage: relay402 [start] [--check]");
  });

  test("an unknown command or option is a usage error (exit 2), without echoing it", () => {
    const unknown = relay402(["0x1234secret"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown command");
    expect(unknown.stderr).not.toContain("0x1234secret");
    const option = relay402(["check", "--verbose"]);
    expect(option.status).toBe(2);
    expect(option.stderr).toContain("unknown option --verbose");
    expect(option.stderr).toContain("Usage: relay402 check");
  });

  test("check on the devnet config lists every check as ok and exits 0, listening on nothing", async () => {
    const file = await devnetConfigFile("devnet");
    for (const args of [["check"], ["start", "--check"]]) {
      const result = relay402(args, { RELAY402_CONFIG: file });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      const lines = result.stdout.trim().split("\n");
      expect(lines.slice(0, 2)).toEqual(["ok      config is valid", "ok      databasePath is writable"]);
      expect(lines).toContain("ok      networks.bsc.rpcUrls.0 answers chain id 56");
      expect(lines).toContain("ok      networks.base.bundlerUrl answers chain id 8453");
      expect(lines).toContain("ok      networks.base.contracts.paymaster verifies networks.base.paymasterSignerKey");
      expect(lines).toContain(
        "ok      networks.bsc.rpcUrls trace mined transactions (debug_traceTransaction), to read why a swap reverted",
      );
      expect(lines.filter((line) => line.startsWith("FAILED"))).toEqual([]);
      expect(lines.at(-1)).toMatch(/^\d+ checks: the service would start$/);
      expect(result.stdout).not.toContain('"event":"started"');
    }
  });

  test("check on a broken config lists every problem as failed and exits 1", async () => {
    const misspelt = await devnetConfigFile("misspelt", (config) => {
      const { maxFeePerGasGwei, ...bsc } = config.networks.bsc;
      config.networks.bsc = { ...bsc, maxFeePerGasGwie: maxFeePerGasGwei };
      config.networks.base.executorKeys = ["0x00"];
    });
    const invalid = relay402(["check"], { RELAY402_CONFIG: misspelt });
    expect(invalid.status).toBe(1);
    expect(invalid.stdout.trim().split("\n")).toEqual([
      "FAILED  config: maxFeePerGasGwie: unknown setting on networks.bsc; did you mean maxFeePerGasGwei?",
      "FAILED  config: networks.base.executorKeys.0 (BASE_EXECUTOR_KEYS): not a secp256k1 private key",
      "2 checks, 2 failed: the service would not start",
    ]);

    const closedPort = await freePort();
    const wrongChain = await devnetConfigFile("wrong-chain", (config) => {
      config.networks.bsc.rpcUrls = [getTestDevnet().devnet.manifest.networks.base.rpcUrl];
      // A PostgreSQL that does not answer: named by its setting, never by its URL (it holds a password).
      config.databaseUrl = `postgres://relay402:hunter2secret@127.0.0.1:${closedPort}/relay402`;
      // A swap router the relayer does not whitelist only switches swaps off on base.
      config.networks.base.swap.routers[0].address = "0x000000000000000000000000000000000000dEaD";
    });
    const wired = relay402(["check"], { RELAY402_CONFIG: wrongChain });
    expect(wired.status).toBe(1);
    expect(wired.stdout).toContain(
      "FAILED  networks.bsc.rpcUrls.0 answers chain id 56: networks.bsc.rpcUrls.0 answers chain id 8453, expected 56",
    );
    expect(wired.stdout).toContain("ok      networks.base.rpcUrls.0 answers chain id 8453");
    expect(wired.stdout).toMatch(
      /\nFAILED {2}databaseUrl answers: databaseUrl \(DATABASE_URL\): PostgreSQL could not be opened/,
    );
    expect(wired.stdout).not.toContain("hunter2secret");
    expect(wired.stdout).toMatch(/\noff {5}networks\.base serves swaps: networks\.base\.swap\.routers\.0/);
    expect(wired.stdout.trim().split("\n").at(-1)).toMatch(/^\d+ checks, 2 failed: the service would not start$/);
    expect(wired.stdout).not.toContain("127.0.0.1");
  });
});
