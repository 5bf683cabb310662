import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Instance } from "prool";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ENTRY_POINT_V07 } from "../../src/chain/addresses";
import { type NetworkName as PresetName, presetOf } from "../../src/networks";
import { placeCanonicalContracts } from "./canonical";
import { devnetChain } from "./chain";
import { deployBundlerSimulations, deployContracts, fundNativeBalances, paymentTokens, type TokenKind } from "./deploy";
import { deployDex } from "./dex";
import type { DevnetDex } from "./dex-plan";
import { DEVNET_ADMIN_API_KEY, devnetKeys } from "./keys";
import { acquireLock, type Lock } from "./lock";
import { freePort } from "./ports";

const root = resolve(import.meta.dir, "..", "..");
const ANVIL_BINARY = join(root, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");

/** The devnet's two networks; a test may start another preset's network beside them (startDevnetNetwork). */
export type NetworkName = "bsc" | "base";

/**
 * A devnet token; `kind` says what its payer can sign: `eip3009` transfers (USDC), only an `eip2612` permit
 * (PUSD), or nothing (`plain`: USDT, DAI), when an approve is the payer's first transaction.
 */
export type DevnetToken = { address: Address; decimals: number; eip3009: boolean; eip2612: boolean; kind: TokenKind };
export type DevnetNetwork = {
  chainId: number;
  rpcUrl: string;
  bundlerUrl: string;
  entryPoint: Address;
  relayer: Address;
  factory: Address;
  accountImplementation: Address;
  paymaster: Address;
  /** PrivacyPool (deployed by src/operator/deploy/), the same address on both networks. */
  privacyPool: Address;
  feeRecipient: Address;
  tokens: Record<string, DevnetToken>;
  /** Uniswap V2/V3 deployed by scripts/devnet/dex.ts; absent on a fork (the real routers come from config). */
  dex?: DevnetDex;
  /** Set on a fork of the real chain: swaps use its real routers (src/swap/known-routers.ts). */
  forked?: true;
};
/** The manifest written to `.devnet/devnet.json` (shape fixed by decisions.md). */
export type DevnetManifest = {
  service: string;
  adminApiKey: string;
  networks: Record<NetworkName, DevnetNetwork>;
  accounts: { address: Address; privateKey: Hex }[];
};

export type DevnetOptions = {
  /** Folder for the manifest and the lock file. */
  dir?: string;
  servicePort?: number;
  /** Ports of anvil and Alto per network; free ports are picked when absent. */
  ports?: Partial<Record<NetworkName, { rpc?: number; bundler?: number }>>;
  /** Seconds between blocks; automine when absent. */
  blockTime?: number;
  /** Fork a real chain instead of an empty one (BSC_RPC_URL / BASE_RPC_URL). */
  forkUrls?: Partial<Record<NetworkName, string>>;
  /** Silence the children's output. */
  quiet?: boolean;
  /** Told of each step as it starts (`bun run dev` prints them: a first start takes a while). */
  progress?: (step: string) => void;
};

export type Devnet = {
  manifest: DevnetManifest;
  manifestPath: string;
  /** Process ids of every child, so that a crashed parent can be cleaned up by pid, never by name. */
  pids: number[];
  stop(): Promise<void>;
};

type Stoppable = { stop(): Promise<void> };

/**
 * The devnet's Alto bundler for the chain at `rpcUrl` (EntryPoint v0.7, the bundler keys of devnetKeys, its
 * simulation contracts already deployed: `simulations`), not started yet.
 */
export function devnetAlto(
  rpcUrl: string,
  port: number,
  simulations: Awaited<ReturnType<typeof deployBundlerSimulations>>,
) {
  return Instance.alto({
    entrypoints: [ENTRY_POINT_V07],
    rpcUrl,
    port,
    executorPrivateKeys: [devnetKeys.bundlerExecutor],
    utilityPrivateKey: devnetKeys.bundlerUtility,
    safeMode: false,
    deploySimulationsContract: false,
    ...simulations,
    pollingInterval: 100,
  } as Parameters<typeof Instance.alto>[0]);
}

/** A network of the devnet: anvil with the preset's chain id, EntryPoint, Alto, relay402's contracts and a DEX. */
async function startNetwork(network: PresetName, options: DevnetOptions, running: Stoppable[], pids: number[]) {
  const { chainId } = presetOf(network);
  const ports = network === "bsc" || network === "base" ? options.ports?.[network] : undefined;
  const rpcPort = ports?.rpc ?? (await freePort());
  const bundlerPort = ports?.bundler ?? (await freePort());
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  const bundlerUrl = `http://127.0.0.1:${bundlerPort}`;
  const chain = devnetChain(chainId, `${network}-devnet`, rpcUrl);
  const forkUrl = network === "bsc" || network === "base" ? options.forkUrls?.[network] : undefined;

  const anvil = Instance.anvil({
    binary: ANVIL_BINARY,
    chainId,
    host: "127.0.0.1",
    port: rpcPort,
    blockTime: options.blockTime,
    forkUrl,
    // Alto's own simulation contracts exceed the default code size limit.
    codeSizeLimit: 0x100000,
  } as Parameters<typeof Instance.anvil>[0]);
  running.push(anvil);
  options.progress?.(`${network}: starting anvil (chain ${chainId}) on port ${rpcPort}`);
  await anvil.start();
  pids.push(anvil._internal.process.pid ?? 0);

  options.progress?.(`${network}: placing EntryPoint v0.7, Permit2 and Multicall3, deploying Alto's simulations`);
  await fundNativeBalances(rpcUrl, chain);
  await placeCanonicalContracts(rpcUrl, chain);
  const simulations = await deployBundlerSimulations(rpcUrl, chain);

  const alto = devnetAlto(rpcUrl, bundlerPort, simulations);
  running.push(alto);
  const forked = Boolean(forkUrl);
  // The payment token as deploy.ts whitelists it: USDT (18 decimals, no EIP-3009) on chain 56, USDC elsewhere.
  const paysUsdt = chainId === 56;
  options.progress?.(
    `${network}: deploying relay402's contracts and the DEX, starting the Alto bundler on port ${bundlerPort}`,
  );
  const contractsDeployed = deployContracts(rpcUrl, chain, { forked });
  const [contracts, swaps] = await Promise.all([
    contractsDeployed,
    deployDex(rpcUrl, chain, {
      forked,
      paymentToken: contractsDeployed.then((c) =>
        paysUsdt ? { address: c.usdt, decimals: 18 } : { address: c.usdc, decimals: 6 },
      ),
    }),
    alto.start().then(() => pids.push(alto._internal.process.pid ?? 0)),
  ]);

  // The chain's own payment token first (tests take the first token as "the" token), then the DEX's, then the
  // other kinds: each network has one token of each kind.
  const payment = paymentTokens(chainId, contracts);
  const entry = ({ symbol, address, decimals, eip3009, eip2612, kind }: typeof payment.main) => [
    symbol,
    { address, decimals, eip3009, eip2612, kind },
  ];

  const networkManifest: DevnetNetwork = {
    chainId,
    rpcUrl,
    bundlerUrl,
    entryPoint: contracts.entryPoint,
    relayer: contracts.relayer,
    factory: contracts.factory,
    accountImplementation: contracts.accountImplementation,
    paymaster: contracts.paymaster,
    privacyPool: contracts.privacyPool,
    feeRecipient: privateKeyToAccount(devnetKeys.feeRecipient).address,
    tokens: {
      ...Object.fromEntries([entry(payment.main)]),
      ...swaps.tokens,
      ...Object.fromEntries(payment.others.map(entry)),
    },
    dex: swaps.dex,
    ...(forked ? { forked: true as const } : {}),
  };
  return networkManifest;
}

/**
 * One more devnet network beside the run's two, under another preset's name and chain id (a test of a network
 * other than bsc and base): the same contracts, its own anvil and Alto, stopped by `stop()`, also when the start
 * fails. Its processes' ids are in `pids`.
 */
export async function startDevnetNetwork(
  name: PresetName,
  options: Pick<DevnetOptions, "blockTime" | "quiet"> = {},
): Promise<{ network: DevnetNetwork; pids: number[]; stop(): Promise<void> }> {
  const running: Stoppable[] = [];
  const pids: number[] = [];
  const stop = async () => {
    await Promise.allSettled(running.reverse().map((instance) => instance.stop()));
  };
  try {
    return { network: await startNetwork(name, options, running, pids), pids, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts two local chains (56 and 8453), each with an Alto bundler and every relay402 contract,
 * and writes the manifest. Everything started is stopped by `stop()`, also when the start fails.
 */
export async function startDevnet(options: DevnetOptions = {}): Promise<Devnet> {
  const dir = resolve(options.dir ?? join(root, ".devnet"));
  mkdirSync(dir, { recursive: true });
  const lock: Lock = acquireLock(dir);
  const running: Stoppable[] = [];
  const pids: number[] = [];

  const stop = async () => {
    await Promise.allSettled(running.reverse().map((instance) => instance.stop()));
    lock.release();
  };

  try {
    const [bsc, base] = await Promise.all([
      startNetwork("bsc", options, running, pids),
      startNetwork("base", options, running, pids),
    ]);
    const manifest: DevnetManifest = {
      service: `http://127.0.0.1:${options.servicePort ?? 4020}`,
      adminApiKey: DEVNET_ADMIN_API_KEY,
      networks: { bsc, base },
      accounts: devnetKeys.payers.map((privateKey) => ({
        address: privateKeyToAccount(privateKey).address,
        privateKey,
      })),
    };
    const manifestPath = join(dir, "devnet.json");
    writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    lock.recordPids(pids);
    return { manifest, manifestPath, pids, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
