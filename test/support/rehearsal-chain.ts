// What a real chain holds before relay402 arrives, and nothing more: an anvil with the chain's id, the canonical
// contracts from their published artifacts (scripts/devnet/canonical.ts, as the devnet places them), stand-ins
// for the chain's stablecoins at their real addresses, and an Alto bundler (what an operator configures as
// bundlerUrl). No relay402 contract: `relay402 deploy` puts them there.
import { Instance } from "prool";
import {
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  type PublicClient,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { forgeArtifact } from "../../scripts/devnet/artifacts";
import { placeCanonicalContracts } from "../../scripts/devnet/canonical";
import { devnetChain } from "../../scripts/devnet/chain";
import { deployBundlerSimulations, fundNativeBalances } from "../../scripts/devnet/deploy";
import { devnetKeys } from "../../scripts/devnet/keys";
import { freePort } from "../../scripts/devnet/ports";
import { devnetAlto } from "../../scripts/devnet/start";
import { presetOfChain } from "../../src/networks";

const root = `${import.meta.dir}/../..`;

export type RehearsalChain = {
  chainId: number;
  rpcUrl: string;
  bundlerUrl: string;
  chain: Chain;
  public: PublicClient;
  test: ReturnType<typeof createTestClient>;
  /** The stand-in of the preset's first stablecoin, at the real one's address (public mint, as the devnet's test tokens). */
  token: { symbol: string; address: Address; decimals: number };
  /** Every preset stablecoin's stand-in, `token` first. */
  tokens: { symbol: string; address: Address; decimals: number }[];
  pids: number[];
  stop(): Promise<void>;
};

/**
 * Stand-ins at the real stablecoins' addresses (the network preset's), each the devnet's test token of the same
 * kind: TestUSDC (6 decimals, EIP-3009, EIP-712 domain "USD Coin"/"2") for an EIP-3009 token, TestFiatToken (the
 * same with EIP-2612 permit, like Base's USDC) for one that also has permit, TestUSDT (18 decimals, neither) for the
 * others. Each is deployed normally (its constructor sets the EIP-712 immutables),
 * then its runtime code and its first storage slots (OpenZeppelin's ERC20 keeps name and symbol in slots 3 and 4)
 * are copied to the real address.
 */
async function placeStandIns(chainId: number, rpcUrl: string, chain: Chain) {
  const transport = http(rpcUrl);
  const test = createTestClient({ chain, transport, mode: "anvil" });
  const client = createPublicClient({ chain, transport });
  const wallet = createWalletClient({ chain, transport, account: privateKeyToAccount(devnetKeys.owner) });
  const stablecoins = presetOfChain(chainId)?.stablecoins ?? [];
  if (stablecoins.length === 0) throw new Error(`no preset stablecoins for chain ${chainId}`);
  const placed: { symbol: string; address: Address; decimals: number }[] = [];
  for (const token of stablecoins) {
    const artifact = !token.eip3009
      ? forgeArtifact("TestUSDT.sol", "TestUSDT")
      : token.eip2612
        ? forgeArtifact("TestFiatToken.sol", "TestFiatToken")
        : forgeArtifact("TestUSDC.sol", "TestUSDC");
    const hash = await wallet.sendTransaction({ data: artifact.bytecode });
    const { contractAddress } = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (!contractAddress) throw new Error(`the stand-in ${token.symbol} was not deployed`);
    const code = await client.getCode({ address: contractAddress });
    if (!code) throw new Error(`the stand-in ${token.symbol} has no code`);
    await test.setCode({ address: token.address, bytecode: code });
    for (let slot = 0; slot < 8; slot++) {
      const value = await client.getStorageAt({ address: contractAddress, slot: toHex(slot, { size: 32 }) });
      if (value && BigInt(value) !== 0n) await test.setStorageAt({ address: token.address, index: slot, value });
    }
    placed.push({ symbol: token.symbol, address: token.address, decimals: token.decimals });
  }
  return placed;
}

/** `bundler: false` leaves Alto out (a test that sends no UserOp). */
export async function startRehearsalChain(
  chainId: 56 | 8453,
  options: { bundler?: boolean } = {},
): Promise<RehearsalChain> {
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
    const tokens = await placeStandIns(chainId, rpcUrl, chain);
    const token = tokens[0] as (typeof tokens)[number];
    if (options.bundler !== false) {
      const simulations = await deployBundlerSimulations(rpcUrl, chain);
      const alto = devnetAlto(rpcUrl, bundlerPort, simulations);
      running.push(alto);
      await alto.start();
      pids.push(alto._internal.process.pid ?? 0);
    }
    const transport = http(rpcUrl);
    return {
      chainId,
      rpcUrl,
      bundlerUrl,
      chain,
      public: createPublicClient({ chain, transport }) as PublicClient,
      test: createTestClient({ chain, transport, mode: "anvil" }),
      token,
      tokens,
      pids,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
