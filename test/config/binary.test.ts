import { afterAll, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBinary } from "../../scripts/binary";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { encodeConfig } from "../../src/config/load";
import { VERSION } from "../../src/version";
import { getTestDevnet } from "../support/devnet";
import { withOperatorKeys } from "../support/operator-keys";

const dir = mkdtempSync(join(tmpdir(), "relay402-binary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the single binary starts from a config file plus secrets in the environment and serves /health", async () => {
  const binary = join(dir, "relay402");
  buildBinary(binary);
  // The binary is the same command line as `bun src/main.ts` (test/config/cli.test.ts covers it in full).
  const version = spawnSync(binary, ["check", "--version"], { encoding: "utf8", env: { PATH: process.env.PATH } });
  expect([version.status, version.stdout.trim()]).toEqual([0, `relay402 ${VERSION}`]);
  const help = spawnSync(binary, ["--help"], { encoding: "utf8", env: { PATH: process.env.PATH } });
  expect(help.status).toBe(0);
  expect(help.stdout).toContain("check ");
  // `mcp` loads the MCP server only when it runs (src/cli/mcp-command.ts): the binary must still carry it.
  const mcp = spawnSync(binary, ["mcp"], { encoding: "utf8", env: { PATH: process.env.PATH }, input: "" });
  expect([mcp.status, mcp.stderr.trim()]).toEqual([1, "relay402 mcp: RELAY402_URL must be the service's URL"]);

  const port = await freePort();
  const config = encodeConfig(
    configFromManifest(getTestDevnet().devnet.manifest, { port, databasePath: join(dir, "db.sqlite") }),
  );
  // Secrets travel in the environment; the file holds the rest. Production refuses the public devnet admin key.
  const { adminApiKey: _devnetKey, networks, ...rest } = config;
  const adminApiKey = `binary-test-${crypto.randomUUID()}`;
  const strip = (network: NonNullable<typeof networks.bsc>) => {
    const { executorKeys: _e, paymasterSignerKey: _p, ...publicPart } = network;
    return publicPart;
  };
  const file = join(dir, "relay402.json");
  writeFileSync(
    file,
    JSON.stringify({
      ...rest,
      mode: "production",
      // The devnet's pool verifies with the devnet circuit, which production serves only when told to.
      incognito: { allowUntrustedSetup: true },
      networks: { bsc: strip(networks.bsc!), base: strip(networks.base!) },
    }),
  );
  // Production refuses the devnet's keys (the public test mnemonic): the binary runs with keys of its own.
  await withOperatorKeys(["bsc", "base"], async (keys) => {
    const child = spawn(binary, [], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        RELAY402_CONFIG: file,
        ADMIN_API_KEY: adminApiKey,
        BSC_EXECUTOR_KEYS: keys.bsc.executorKeys.join(","),
        BASE_EXECUTOR_KEYS: keys.base.executorKeys.join(","),
        BSC_PAYMASTER_SIGNER_KEY: keys.bsc.paymasterSignerKey,
        BASE_PAYMASTER_SIGNER_KEY: keys.base.paymasterSignerKey,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    try {
      let health: any;
      for (let attempt = 0; attempt < 100 && !health; attempt++) {
        await Bun.sleep(100);
        health = await fetch(`http://127.0.0.1:${port}/health`)
          .then((r) => r.json())
          .catch(() => undefined);
      }
      expect(health?.status).toBe("ok");
      expect(output).toContain('"event":"started"');
      // The /openapi page's UI is embedded in the binary, not read from node_modules or a CDN.
      const ui = await fetch(`http://127.0.0.1:${port}/openapi/assets/swagger-ui-bundle.js`);
      expect(ui.status).toBe(200);
      expect((await ui.text()).length).toBeGreaterThan(100_000);
      // The dashboard's page and files are embedded as well (src/dashboard/page).
      const dashboard = await fetch(`http://127.0.0.1:${port}/dashboard`);
      expect(await dashboard.text()).toContain("<title>relay402 dashboard</title>");
      const script = await fetch(`http://127.0.0.1:${port}/dashboard/assets/dashboard.js`);
      expect(await script.text()).toContain("sessionStorage");
      // The incognito circuit's artifacts are embedded too: the descriptor and the verification key by its URL.
      const circuit = (await fetch(`http://127.0.0.1:${port}/incognito/circuit`).then((r) => r.json())) as {
        verificationKey: string;
      };
      const key = await fetch(`http://127.0.0.1:${port}${circuit.verificationKey}`);
      expect(key.status).toBe(200);
      expect(((await key.json()) as { protocol: string }).protocol).toBe("groth16");
      for (const secret of [adminApiKey, ...keys.bsc.executorKeys, keys.bsc.paymasterSignerKey]) {
        expect(output).not.toContain(secret.slice(2));
      }
    } finally {
      child.kill("SIGTERM");
      await new Promise((done) => child.once("exit", done));
    }
    expect(child.exitCode === 0 || child.signalCode === "SIGTERM").toBe(true);
  });
}, 60_000);
