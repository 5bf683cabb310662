// `bun run dev`: builds the contracts, starts the two-chain devnet and the service on it, and stops
// everything on Ctrl-C. Ports: RELAY402_PORT (service, default 4020), BSC_RPC_PORT, BSC_BUNDLER_PORT,
// BASE_RPC_PORT, BASE_BUNDLER_PORT. Forked mode: set BSC_RPC_URL / BASE_RPC_URL.
import "../src/production-env";
import { rmSync } from "node:fs";
import { startServer } from "../src/server";
import { buildContracts } from "./devnet/build";
import { configFromManifest } from "./devnet/service-config";
import { startDevnet } from "./devnet/start";

const port = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);

const begun = performance.now();
const step = (message: string) => console.log(`[dev ${((performance.now() - begun) / 1000).toFixed(1)}s] ${message}`);
step("building the contracts (forge build; the first build compiles everything with solc and takes about a minute)");
buildContracts();
step("contracts built");
const started = performance.now();
const devnet = await startDevnet({
  servicePort: port("RELAY402_PORT") ?? 4020,
  ports: {
    bsc: { rpc: port("BSC_RPC_PORT") ?? 8545, bundler: port("BSC_BUNDLER_PORT") ?? 4337 },
    base: { rpc: port("BASE_RPC_PORT") ?? 8546, bundler: port("BASE_BUNDLER_PORT") ?? 4338 },
  },
  blockTime: port("BLOCK_TIME"),
  forkUrls: { bsc: process.env.BSC_RPC_URL, base: process.env.BASE_RPC_URL },
  quiet: true,
  progress: step,
});
const devnetSeconds = ((performance.now() - started) / 1000).toFixed(1);
// The chains are new on every start, so the service's records of the previous run must go too.
const config = configFromManifest(devnet.manifest);
for (const suffix of ["", "-wal", "-shm"]) rmSync(`${config.databasePath}${suffix}`, { force: true });
step("starting the service");
const service = await startServer(config);

const { networks } = devnet.manifest;
console.log(`
relay402 devnet is up (${devnetSeconds}s)
  service      ${service.url}   (OpenAPI: ${service.url}/openapi)
  admin key    ${devnet.manifest.adminApiKey}   (development only)
  bsc  (56)    rpc ${networks.bsc.rpcUrl}   bundler ${networks.bsc.bundlerUrl}
  base (8453)  rpc ${networks.base.rpcUrl}   bundler ${networks.base.bundlerUrl}
  relayer ${networks.bsc.relayer}  factory ${networks.bsc.factory}  paymaster ${networks.bsc.paymaster}
  manifest     ${devnet.manifestPath}
Ctrl-C stops everything.
`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  await service.stop().catch(() => undefined);
  await devnet.stop();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
