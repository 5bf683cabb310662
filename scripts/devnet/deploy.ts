import {
  type Address,
  type Chain,
  concat,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  http,
  keccak256,
  parseAbi,
  parseEther,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CREATE2_DEPLOYER, ENTRY_POINT_V07, MULTICALL3 } from "../../src/chain/addresses";
import { knownSwapNetwork } from "../../src/swap/known-routers";
import { altoArtifact, entryPointArtifact, forgeArtifact } from "./artifacts";
import { relayerSwapSetupCalls } from "./dex";
import { devnetKeys } from "./keys";
import { deployPrivacyPool } from "./privacy-pool";

const ENTRY_POINT_SALT: Hex = "0x90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3";

export type DeployedContracts = {
  entryPoint: Address;
  relayer: Address;
  factory: Address;
  accountImplementation: Address;
  paymaster: Address;
  usdt: Address;
  usdc: Address;
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

const saltOf = (label: string) => keccak256(toHex(`relay402:${label}`));

/** Sends `initCode` through the CREATE2 deployer unless its address already has code (forks, reruns). */
async function create2(clients: Clients, salt: Hex, initCode: Hex): Promise<Address> {
  const address = getContractAddress({ opcode: "CREATE2", from: CREATE2_DEPLOYER, salt, bytecode: initCode });
  const code = await clients.public.getCode({ address });
  if (code && code !== "0x") return address;
  const hash = await clients.wallet.sendTransaction({ to: CREATE2_DEPLOYER, data: concat([salt, initCode]) });
  const receipt = await clients.public.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
  if (receipt.status !== "success") throw new Error(`CREATE2 deployment of ${address} reverted`);
  const deployed = await clients.public.getCode({ address });
  if (!deployed || deployed === "0x") {
    throw new Error(`CREATE2 deployment of ${address} left no code (is the deployer at ${CREATE2_DEPLOYER}?)`);
  }
  return address;
}

function withArgs(bytecode: Hex, types: readonly { type: string }[], values: readonly unknown[]): Hex {
  return concat([bytecode, encodeAbiParameters(types, values)]);
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

export async function deployEntryPoint(rpcUrl: string, chain: Chain): Promise<Address> {
  const clients = clientsFor(rpcUrl, chain);
  const address = await create2(clients, ENTRY_POINT_SALT, entryPointArtifact().bytecode);
  if (address.toLowerCase() !== ENTRY_POINT_V07.toLowerCase()) {
    throw new Error(`EntryPoint landed at ${address}, expected ${ENTRY_POINT_V07}`);
  }
  return address;
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

export const TEST_TOKEN_MINT = { usdt: parseEther("1000000"), usdc: 1_000_000n * 10n ** 6n };

/** Deploys relay402's contracts (same addresses on every chain and run) and prepares them for use. */
export async function deployContracts(
  rpcUrl: string,
  chain: Chain,
  options: { forked?: boolean } = {},
): Promise<DeployedContracts> {
  const clients = clientsFor(rpcUrl, chain);
  const ownerAddress = clients.owner.address;
  const signer = privateKeyToAccount(devnetKeys.paymasterSigner).address;

  const relayer = await create2(
    clients,
    saltOf("Relayer"),
    withArgs(
      forgeArtifact("Relayer.sol", "Relayer").bytecode,
      [{ type: "string" }, { type: "string" }, { type: "address" }],
      ["relay402", "1", ownerAddress],
    ),
  );
  const factory = await create2(
    clients,
    saltOf("WalletFactory"),
    forgeArtifact("WalletFactory.sol", "WalletFactory").bytecode,
  );
  const paymaster = await create2(
    clients,
    saltOf("Paymaster"),
    withArgs(
      forgeArtifact("Paymaster.sol", "Paymaster").bytecode,
      [{ type: "address" }, { type: "address" }, { type: "address" }],
      [ENTRY_POINT_V07, signer, ownerAddress],
    ),
  );
  const usdt = await create2(clients, saltOf("TestUSDT"), forgeArtifact("TestUSDT.sol", "TestUSDT").bytecode);
  const usdc = await create2(clients, saltOf("TestUSDC"), forgeArtifact("TestUSDC.sol", "TestUSDC").bytecode);

  const multicallCode = await clients.public.getCode({ address: MULTICALL3 });
  if (!multicallCode || multicallCode === "0x") {
    await clients.test.setCode({
      address: MULTICALL3,
      bytecode: forgeArtifact("Multicall3.sol", "Multicall3").deployedBytecode,
    });
  }

  const accountImplementation = await clients.public.readContract({
    address: factory,
    abi: parseAbi(["function accountImplementation() view returns (address)"]),
    functionName: "accountImplementation",
  });

  const chainToken = chain.id === 56 ? usdt : usdc;
  const calls: { to: Address; data: Hex; value?: bigint }[] = [
    {
      to: relayer,
      data: encodeFunctionData({
        abi: parseAbi(["function setTokenWhitelisted(address token, bool allowed)"]),
        functionName: "setTokenWhitelisted",
        args: [chainToken, true],
      }),
    },
    {
      to: paymaster,
      data: encodeFunctionData({ abi: parseAbi(["function deposit() payable"]), functionName: "deposit" }),
      value: parseEther("1000"),
    },
    // A fork whitelists the chain's real routers (src/swap/known-routers.ts) instead of the devnet DEX.
    ...relayerSwapSetupCalls(relayer, options.forked ? knownSwapNetwork(chain.id) : undefined),
  ];
  const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);
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
  }
  // Sent back to back with explicit nonces, each once the node accepted the previous one (fired at once, a later
  // nonce can reach anvil first and wait in its queue; see dex.ts), then awaited together.
  let nonce = await clients.public.getTransactionCount({ address: ownerAddress, blockTag: "pending" });
  const hashes: Hex[] = [];
  for (const call of calls) hashes.push(await clients.wallet.sendTransaction({ ...call, nonce: nonce++ }));
  for (const hash of hashes) {
    const receipt = await clients.public.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
    if (receipt.status !== "success") throw new Error(`devnet setup transaction ${hash} reverted`);
  }

  // After the owner's batch (same sender); its tokens are the relayer's whitelist set above.
  const { privacyPool } = await deployPrivacyPool(rpcUrl, chain, relayer);

  return {
    entryPoint: ENTRY_POINT_V07,
    relayer,
    factory,
    accountImplementation,
    paymaster,
    usdt,
    usdc,
    multicall3: MULTICALL3,
    privacyPool,
  };
}
