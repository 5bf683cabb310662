// What a real chain holds before relay402 arrives, and nothing more: an anvil with the chain's id, the canonical
// contracts from their published artifacts (scripts/devnet/canonical.ts, as the devnet places them), stand-ins
// for the chain's stablecoins at their real addresses, and an Alto bundler (what an operator configures as
// bundlerUrl). No relay402 contract: `relay402 deploy` puts them there.
import { Instance } from "prool";
import { type Address, type Chain, createPublicClient, createTestClient, http, type PublicClient } from "viem";
import { forgeArtifact } from "../../scripts/devnet/artifacts";
import { placeCanonicalContracts } from "../../scripts/devnet/canonical";
import { devnetChain } from "../../scripts/devnet/chain";
import { deployBundlerSimulations, fundNativeBalances } from "../../scripts/devnet/deploy";
import { devnetKeys } from "../../scripts/devnet/keys";
import { freePort } from "../../scripts/devnet/ports";
import { ENTRY_POINT_V07 } from "../../src/chain/addresses";
import { BASE_USDC, BSC_USDT } from "../../src/swap/known-routers";

const root = `${import.meta.dir}/../..`;

export type RehearsalChain = {
  chainId: number;
  rpcUrl: string;
  bundlerUrl: string;
  chain: Chain;
  public: PublicClient;
  test: ReturnType<typeof createTestClient>;
  /** The stand-in stablecoin at the real one's address (public mint, as the devnet's test tokens). */
  token: { symbol: string; address: Address; decimals: number };
  pids: number[];
  stop(): Promise<void>;
};

/**
 * The stand-in at the real stablecoin's address: the devnet's test token of the same kind (BSC-USD's name,
 * symbol and 18 decimals without EIP-3009 on 56; Circle USDC's 6 decimals, EIP-3009 and EIP-712 domain
 * ("USD Coin", "2") on 8453), its runtime code set there. TestUSDC keeps name and symbol in storage (slots 3 and
 * 4 of OpenZeppelin's ERC20): they are copied from an instance deployed normally.
 */
async function placeStandIn(chainId: number, rpcUrl: string, chain: Chain) {
  const transport = http(rpcUrl);
  const test = createTestClient({ chain, transport, mode: "anvil" });
  if (chainId === 56) {
    await test.setCode({ address: BSC_USDT, bytecode: forgeArtifact("TestUSDT.sol", "TestUSDT").deployedBytecode });
    return { symbol: "USDT", address: BSC_USDT, decimals: 18 };
  }
  await test.setCode({ address: BASE_USDC, bytecode: forgeArtifact("TestUSDC.sol", "TestUSDC").deployedBytecode });
  // "USD Coin" and "USDC" as Solidity stores short strings: the bytes left-aligned, length × 2 in the last byte.
  const short = (text: string) =>
    `0x${Buffer.from(text).toString("hex").padEnd(62, "0")}${(text.length * 2).toString(16).padStart(2, "0")}` as const;
  await test.setStorageAt({ address: BASE_USDC, index: 3, value: short("USD Coin") });
  await test.setStorageAt({ address: BASE_USDC, index: 4, value: short("USDC") });
  return { symbol: "USDC", address: BASE_USDC, decimals: 6 };
}

export async function startRehearsalChain(chainId: 56 | 8453): Promise<RehearsalChain> {
  const [rpcPort, bundlerPort] = [await freePort(), await freePort()];
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  const bundlerUrl = `http://127.0.0.1:${bundlerPort}`;
  const chain = devnetChain(chainId, `rehearsal-${chainId}`, rpcUrl);
  const running: { stop(): Promise<void> }[] = [];
  const pids: number[] = [];
  const stop = async () => {
    await Promise.allSettled(running.reverse().map((instance) => instance.stop()));
  };
  try {
    const anvil = Instance.anvil({
      binary: `${root}/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil`,
      chainId,
      host: "127.0.0.1",
      port: rpcPort,
      // Alto's own simulation contracts exceed the default code size limit.
      codeSizeLimit: 0x100000,
    } as Parameters<typeof Instance.anvil>[0]);
    running.push(anvil);
    await anvil.start();
    pids.push(anvil._internal.process.pid ?? 0);
    // The bundler's keys (and the key deploying its simulations): bundler infrastructure, not relay402's.
    await fundNativeBalances(rpcUrl, chain);
    await placeCanonicalContracts(rpcUrl, chain);
    const token = await placeStandIn(chainId, rpcUrl, chain);
    const simulations = await deployBundlerSimulations(rpcUrl, chain);
    const alto = Instance.alto({
      entrypoints: [ENTRY_POINT_V07],
      rpcUrl,
      port: bundlerPort,
      executorPrivateKeys: [devnetKeys.bundlerExecutor],
      utilityPrivateKey: devnetKeys.bundlerUtility,
      safeMode: false,
      deploySimulationsContract: false,
      ...simulations,
      pollingInterval: 100,
    } as Parameters<typeof Instance.alto>[0]);
    running.push(alto);
    await alto.start();
    pids.push(alto._internal.process.pid ?? 0);
    const transport = http(rpcUrl);
    return {
      chainId,
      rpcUrl,
      bundlerUrl,
      chain,
      public: createPublicClient({ chain, transport }) as PublicClient,
      test: createTestClient({ chain, transport, mode: "anvil" }),
      token,
      pids,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
