import {
  type Address,
  type Chain,
  concat,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  http,
  parseAbi,
  parseEther,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CREATE2_DEPLOYER, ENTRY_POINT_V07, MULTICALL3 } from "../../src/chain/addresses";
import { CHAIN_IDS, type NetworkName } from "../../src/config/schema";
import { saltOf } from "../../src/operator/deploy/contracts";
import { deploy } from "../../src/operator/deploy/deploy";
import { deployNetwork, FEATURES } from "../../src/operator/deploy/network";
import { knownSwapNetwork } from "../../src/swap/known-routers";
import { altoArtifact, forgeArtifact } from "./artifacts";
import { devnetSwapSetup } from "./dex-plan";
import { devnetKeys } from "./keys";

export type DeployedContracts = {
  entryPoint: Address;
  relayer: Address;
  factory: Address;
  accountImplementation: Address;
  paymaster: Address;
  usdt: Address;
  usdc: Address;
  /** TestPermitToken: EIP-2612 permit, no EIP-3009. */
  permitToken: Address;
  multicall3: Address;
  privacyPool: Address;
};

type Clients = ReturnType<typeof clientsFor>;

function clientsFor(rpcUrl: string, chain: Chain) {
  const transport = http(rpcUrl);
  const owner = privateKeyToAccount(devnetKeys.owner);
  return {
    public: createPublicClient({ chain, transport }),
    wallet: createWalletClient({ chain, transport, account: owner }),
    test: createTestClient({ chain, transport, mode: "anvil" }),
    owner,
  };
}

/** Sends `initCode` through the CREATE2 deployer unless its address already has code (forks, reruns). */
async function create2(clients: Clients, salt: Hex, initCode: Hex): Promise<Address> {
  const address = getContractAddress({ opcode: "CREATE2", from: CREATE2_DEPLOYER, salt, bytecode: initCode });
  const code = await clients.public.getCode({ address });
  if (code && code !== "0x") return address;
  const hash = await clients.wallet.sendTransaction({ to: CREATE2_DEPLOYER, data: concat([salt, initCode]) });
  const receipt = await clients.public.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
  if (receipt.status !== "success") throw new Error(`CREATE2 deployment of ${address} reverted`);
  return address;
}

/** Gives the keys that send transactions their gas; `anvil_setBalance` also works on a fork. */
export async function fundNativeBalances(rpcUrl: string, chain: Chain): Promise<void> {
  const { test } = clientsFor(rpcUrl, chain);
  const addresses = [
    devnetKeys.owner,
    devnetKeys.bundlerExecutor,
    devnetKeys.bundlerUtility,
    ...devnetKeys.executors,
    ...devnetKeys.payers,
  ].map((key) => privateKeyToAccount(key).address);
  await Promise.all(addresses.map((address) => test.setBalance({ address, value: parseEther("10000") })));
}

/**
 * Alto's simulation contracts, deployed by us before Alto starts so that Alto never deploys them itself:
 * its own start-up deployment races the rest of the setup and, when it decides the CREATE2 deployer is
 * missing, waits minutes on a pre-signed transaction that can never be mined here.
 */
export async function deployBundlerSimulations(
  rpcUrl: string,
  chain: Chain,
): Promise<{ pimlicoSimulationContract: Address; entrypointSimulationContractV7: Address }> {
  const clients = clientsFor(rpcUrl, chain);
  const [pimlico, v7] = [
    altoArtifact("PimlicoSimulations.sol/PimlicoSimulations.json"),
    altoArtifact("EntryPointSimulations.sol/EntryPointSimulations07.json"),
  ];
  return {
    pimlicoSimulationContract: await create2(clients, saltOf("PimlicoSimulations"), pimlico),
    entrypointSimulationContractV7: await create2(clients, saltOf("EntryPointSimulations07"), v7),
  };
}

export const TEST_TOKEN_MINT = {
  usdt: parseEther("1000000"),
  usdc: 1_000_000n * 10n ** 6n,
  permitToken: 1_000_000n * 10n ** 6n,
};

/** What a token can sign: EIP-3009 transfers, only an EIP-2612 permit, or neither (the payer must send `approve`). */
export type TokenKind = "eip3009" | "eip2612" | "plain";

/**
 * The devnet's payment tokens of one chain, one of each kind: the chain's own first (USDT, no signatures, on 56 as
 * BSC's; USDC with EIP-3009 elsewhere, as Base's), then the other two after the DEX's tokens.
 */
export function paymentTokens(chainId: number, contracts: Pick<DeployedContracts, "usdt" | "usdc" | "permitToken">) {
  const usdt = { symbol: "USDT", address: contracts.usdt, decimals: 18, eip3009: false, eip2612: false, kind: "plain" };
  const usdc = { symbol: "USDC", address: contracts.usdc, decimals: 6, eip3009: true, eip2612: false, kind: "eip3009" };
  const pusd = {
    symbol: "PUSD",
    address: contracts.permitToken,
    decimals: 6,
    eip3009: false,
    eip2612: true,
    kind: "eip2612",
  };
  const [main, other] = chainId === 56 ? [usdt, usdc] : [usdc, usdt];
  return { main, others: [pusd, other] } as const satisfies Record<string, unknown>;
}

const networkOf = (chainId: number): NetworkName =>
  (Object.keys(CHAIN_IDS) as NetworkName[]).find((name) => CHAIN_IDS[name] === chainId) ?? "bsc";

/**
 * The devnet's test tokens, then relay402's contracts deployed and set up by relay402's deploy (the code an
 * operator runs on a real chain), with every feature and the devnet's keys, then the payers' test tokens.
 */
export async function deployContracts(
  rpcUrl: string,
  chain: Chain,
  options: { forked?: boolean } = {},
): Promise<DeployedContracts> {
  const clients = clientsFor(rpcUrl, chain);
  const usdt = await create2(clients, saltOf("TestUSDT"), forgeArtifact("TestUSDT.sol", "TestUSDT").bytecode);
  const usdc = await create2(clients, saltOf("TestUSDC"), forgeArtifact("TestUSDC.sol", "TestUSDC").bytecode);
  const permitToken = await create2(
    clients,
    saltOf("TestPermitToken"),
    forgeArtifact("TestPermitToken.sol", "TestPermitToken").bytecode,
  );
  const network = deployNetwork(networkOf(chain.id));
  if (!network) throw new Error(`no network for chain ${chain.id}`);
  // A fork whitelists the chain's real routers (src/swap/known-routers.ts) instead of the devnet DEX.
  const swaps = devnetSwapSetup(options.forked ? knownSwapNetwork(chain.id) : undefined);
  const payment = paymentTokens(chain.id, { usdt, usdc, permitToken });
  const whitelisted = ({ symbol, address, decimals, eip3009 }: (typeof payment.others)[number]) => ({
    symbol,
    address,
    decimals,
    eip3009,
  });

  const { addresses } = await deploy(
    {
      network,
      features: FEATURES,
      rpcUrl,
      deployerKey: devnetKeys.owner,
      paymasterSigner: privateKeyToAccount(devnetKeys.paymasterSigner).address,
      tokens: [whitelisted(payment.main), ...swaps.tokens, ...payment.others.map(whitelisted)],
      swapRouters: swaps.routers,
      feeRecipient: privateKeyToAccount(devnetKeys.feeRecipient).address,
      ownerIsEoa: true,
      paymasterDeposit: parseEther("1000"),
      // The devnet's Alto runs without ERC-7562's storage rules (safeMode false), so no stake is needed.
      paymasterStake: { amount: 0n, unstakeDelaySec: 1 },
      allowUntrustedSetup: true,
      dryRun: false,
      pollingIntervalMs: 50,
      baseFeeMultiplier: 4,
    },
    () => {},
  );
  const address = (label: string) => {
    const found = addresses[label];
    if (!found) throw new Error(`deploy did not report ${label}`);
    return found;
  };

  const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);
  const calls: { to: Address; data: Hex }[] = [];
  for (const key of devnetKeys.payers) {
    const to = privateKeyToAccount(key).address;
    calls.push({
      to: usdt,
      data: encodeFunctionData({ abi: mintAbi, functionName: "mint", args: [to, TEST_TOKEN_MINT.usdt] }),
    });
    calls.push({
      to: usdc,
      data: encodeFunctionData({ abi: mintAbi, functionName: "mint", args: [to, TEST_TOKEN_MINT.usdc] }),
    });
    calls.push({
      to: permitToken,
      data: encodeFunctionData({ abi: mintAbi, functionName: "mint", args: [to, TEST_TOKEN_MINT.permitToken] }),
    });
  }
  // Sent back to back with explicit nonces, each once the node accepted the previous one (fired at once, a later
  // nonce can reach anvil first and wait in its queue; see dex.ts), then awaited together.
  let nonce = await clients.public.getTransactionCount({ address: clients.owner.address, blockTag: "pending" });
  const hashes: Hex[] = [];
  for (const call of calls) hashes.push(await clients.wallet.sendTransaction({ ...call, nonce: nonce++ }));
  for (const hash of hashes) {
    const receipt = await clients.public.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
    if (receipt.status !== "success") throw new Error(`devnet mint ${hash} reverted`);
  }

  const factory = address("WalletFactory");
  const accountImplementation = await clients.public.readContract({
    address: factory,
    abi: parseAbi(["function accountImplementation() view returns (address)"]),
    functionName: "accountImplementation",
  });
  return {
    entryPoint: ENTRY_POINT_V07,
    relayer: address("Relayer"),
    factory,
    accountImplementation,
    paymaster: address("Paymaster"),
    usdt,
    usdc,
    permitToken,
    multicall3: MULTICALL3,
    privacyPool: address("PrivacyPool"),
  };
}
