import { erc20Abi } from "@relay402/client/wire/abis";
import { positionManagerAbi, quoterV2Abi, v2RouterAbi, wrappedNativeAbi } from "@relay402/client/wire/swap/abis";
import {
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  encodePacked,
  type Hex,
  http,
  maxUint256,
  parseEther,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CREATE2_DEPLOYER } from "../../src/chain/addresses";
import { knownSwap, knownSwapNetwork } from "../../src/swap/known-routers";
import {
  DEX_ARTIFACTS,
  type DevnetDex,
  devnetDex,
  UNISWAP_V2_INIT_CODE_HASH,
  UNISWAP_V3_INIT_CODE_HASH,
  uniswapInitCodeHashes,
} from "./dex-plan";
import { devnetKeys } from "./keys";

/**
 * Uniswap V2 and V3 on the devnet, standing in for PancakeSwap on bsc and Uniswap on base. Every contract is
 * deployed from its npm build artifact exactly as published: the routers and quoters find pairs and pools by
 * CREATE2 address from a hard-coded hash of the pair/pool creation code, so a recompiled pair or pool would
 * deploy fine and then silently never be found. Through the CREATE2 deployer, so the addresses are the same on
 * both chains and on every run.
 *
 * Liquidity (M = the network's payment token, USDT on bsc and USDC on base; DAI = the second test token; W =
 * the wrapped native token at 1 W = 1000 M = 1000 DAI), chosen so that each kind of route is the best one for
 * some pair (there is no M/DAI pool, so M <-> DAI is two-hop only):
 *   V2 (0.3%):   M/W, DAI/W, both at the reference price.
 *   V3 0.05%:    M/W at the reference price: the pair where V3 is the better route (M <-> W: V3 direct).
 *   V3 0.3%:     DAI/W with 1% more DAI per W than V2 (DAI -> W: V2 direct; M -> DAI: V3 two-hop through W;
 *                DAI -> M: V2 two-hop through W).
 */

/** A token of the DEX as the manifest lists it: neither EIP-3009 nor EIP-2612. */
type DexToken = { address: Address; decimals: number; eip3009: false; eip2612: false; kind: "plain" };

/** The second test token, the same contract and address on both chains; every payer gets this much. */
export const DEX_TEST_TOKEN = { symbol: "DAI", decimals: 18, eip3009: false, payerMint: parseEther("1000000") };

/** The reference price and pool depths (in whole tokens). */
const NATIVE_PRICE = 1000n;
const POOL_NATIVE = 1000n;
const V3_DAI_SKEW_PERCENT = 1n;

/** Wrapped native token every payer holds on a fork (wrapped and sent by the DEX deployer at start). */
export const FORK_PAYER_WRAPPED = parseEther("10");

/**
 * A fork's side of deployDex: nothing is deployed (the real routers are used), each payer gets
 * FORK_PAYER_WRAPPED of the wrapped native token (deposited by the DEX deployer, then sent), and the token is
 * listed beside the network's own so the service accepts it as a sell token.
 */
async function forkWrappedNative(rpcUrl: string, chain: Chain): Promise<Record<string, DexToken>> {
  const network = knownSwapNetwork(chain.id);
  const known = network && knownSwap(network);
  if (!known) return {};
  const { symbol, address, decimals } = known.wrappedNative;
  const transport = http(rpcUrl);
  const account = privateKeyToAccount(devnetKeys.dexDeployer);
  const publicClient = createPublicClient({ chain, transport });
  const wallet = createWalletClient({ chain, transport, account });
  const payers = devnetKeys.payers.map((key) => privateKeyToAccount(key).address);
  await createTestClient({ chain, transport, mode: "anvil" }).setBalance({
    address: account.address,
    value: parseEther("100000"),
  });
  const calls = [
    {
      to: address,
      value: FORK_PAYER_WRAPPED * BigInt(payers.length),
      data: encodeFunctionData({ abi: wrappedNativeAbi, functionName: "deposit" }),
    },
    ...payers.map((payer) => ({
      to: address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [payer, FORK_PAYER_WRAPPED] }),
    })),
  ];
  // One after the other: the transfers need the deposit, and a fork's node estimates gas against its state.
  for (const call of calls) {
    const hash = await wallet.sendTransaction(call);
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
    if (receipt.status !== "success") throw new Error(`fork setup transaction ${hash} reverted`);
  }
  return { [symbol]: { address, decimals, eip3009: false, eip2612: false, kind: "plain" } };
}

function sqrt(value: bigint): bigint {
  if (value < 2n) return value;
  let x = value;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + value / x) / 2n;
  }
  return x;
}

/** Full-range V3 liquidity at the price amountB / amountA (smallest units): create the pool, then mint. */
function v3PoolCalls(
  positionManager: Address,
  owner: Address,
  [a, amountA]: [Address, bigint],
  [b, amountB]: [Address, bigint],
  fee: number,
): { to: Address; data: Hex; gas: bigint }[] {
  const [token0, amount0, token1, amount1] =
    a.toLowerCase() < b.toLowerCase() ? [a, amountA, b, amountB] : [b, amountB, a, amountA];
  const sqrtPriceX96 = sqrt((amount1 << 192n) / amount0);
  const spacing = fee === 500 ? 10 : fee === 3000 ? 60 : 200;
  const maxTick = Math.floor(887272 / spacing) * spacing;
  return [
    {
      to: positionManager,
      gas: 6_500_000n,
      data: encodeFunctionData({
        abi: positionManagerAbi,
        functionName: "createAndInitializePoolIfNecessary",
        args: [token0, token1, fee, sqrtPriceX96],
      }),
    },
    {
      to: positionManager,
      gas: 1_000_000n,
      data: encodeFunctionData({
        abi: positionManagerAbi,
        functionName: "mint",
        args: [
          {
            token0,
            token1,
            fee,
            tickLower: -maxTick,
            tickUpper: maxTick,
            amount0Desired: amount0,
            amount1Desired: amount1,
            amount0Min: 0n,
            amount1Min: 0n,
            recipient: owner,
            deadline: maxUint256,
          },
        ],
      }),
    },
  ];
}

/**
 * Deploys the DEX, DAI and the wrapped native token, seeds the pools and mints DAI to the payers. Runs beside
 * deployContracts with a key of its own (no shared nonces); only the pools with the payment token wait for
 * `paymentToken` (deployed there). Nothing is deployed on a fork: forked networks use the real routers, and
 * the payers get the wrapped native token instead of DAI.
 */
export async function deployDex(
  rpcUrl: string,
  chain: Chain,
  options: { forked: boolean; paymentToken: Promise<{ address: Address; decimals: number }> },
): Promise<{ dex?: DevnetDex; tokens: Record<string, DexToken> }> {
  // Handled here so that a failed deployContracts is reported once, by whoever awaits it first.
  options.paymentToken.catch(() => {});
  if (options.forked) return { tokens: await forkWrappedNative(rpcUrl, chain) };

  // The routers only work with the published pair and pool: refuse to start with anything else.
  const published = uniswapInitCodeHashes();
  for (const [artifact, hash, expected] of [
    [DEX_ARTIFACTS.v2Pair, published.v2, UNISWAP_V2_INIT_CODE_HASH],
    [DEX_ARTIFACTS.v3Pool, published.v3, UNISWAP_V3_INIT_CODE_HASH],
  ] as const) {
    if (hash !== expected) throw new Error(`${artifact} hashes to ${hash}, the routers expect ${expected}`);
  }

  const { contracts, dex, dai } = devnetDex();
  const transport = http(rpcUrl);
  const account = privateKeyToAccount(devnetKeys.dexDeployer);
  const publicClient = createPublicClient({ chain, transport });
  const wallet = createWalletClient({ chain, transport, account });
  await createTestClient({ chain, transport, mode: "anvil" }).setBalance({
    address: account.address,
    value: parseEther("100000"),
  });

  const [estimate, firstNonce] = await Promise.all([
    publicClient.estimateFeesPerGas(),
    publicClient.getTransactionCount({ address: account.address, blockTag: "pending" }),
  ]);
  // Signed up front for ~40 transactions: the base fee they meet depends on what deployContracts mines beside
  // them, and one priced below it would wait forever (and every later nonce with it). Ten times today's is ample.
  const fees = { maxFeePerGas: estimate.maxFeePerGas * 10n, maxPriorityFeePerGas: estimate.maxPriorityFeePerGas };
  let nonce = firstNonce;
  // Explicit nonces and gas limits: the calls depend on each other (approve, then add liquidity), so none can
  // be estimated before the previous one is mined; sent back to back, they are mined in nonce order.
  // Each is broadcast once the previous one was accepted, so the node receives them in nonce order: fired all
  // at once, a later nonce can arrive first and sit in the queue (seen as a 30 s receipt timeout at start).
  let previous: Promise<unknown> = Promise.resolve();
  const send = (call: { to: Address; data: Hex; gas: bigint; value?: bigint }): Promise<Hex> => {
    const own = nonce++;
    const sent = previous.then(() => wallet.sendTransaction({ ...call, nonce: own, ...fees }));
    previous = sent;
    return sent;
  };
  const erc20 = (token: Address, functionName: "approve" | "mint", to: Address, amount: bigint) => ({
    to: token,
    gas: 200_000n,
    data: encodeFunctionData({ abi: erc20Abi, functionName, args: [to, amount] }),
  });
  const addV2 = (a: Address, amountA: bigint, b: Address, amountB: bigint) => ({
    to: dex.v2.router,
    gas: 4_000_000n,
    data: encodeFunctionData({
      abi: v2RouterAbi,
      functionName: "addLiquidity",
      args: [a, b, amountA, amountB, amountA, amountB, account.address, maxUint256],
    }),
  });

  const weth = dex.wrappedNative;
  const native = (whole: bigint) => whole * 10n ** 18n;
  const daiAmount = (whole: bigint) => whole * 10n ** 18n;
  const hashes: Promise<Hex>[] = [];
  const confirm = async (sent: Promise<Hex>[]) => {
    for (const hash of await Promise.all(sent)) {
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 });
      if (receipt.status !== "success") throw new Error(`devnet DEX setup transaction ${hash} reverted`);
    }
  };
  const spenders = [dex.v2.router, dex.v3.positionManager];

  // The contracts are mined before anything else is sent: with interval mining (BLOCK_TIME) their creations
  // fill blocks close to the gas limit, and anvil then lost seeding transactions queued behind them (never
  // mined, gone from the pool, every later nonce stuck). Under automine each is mined as it is sent anyway.
  await confirm(contracts.map((contract) => send({ to: CREATE2_DEPLOYER, data: contract.data, gas: contract.gas })));
  hashes.push(
    send({
      to: weth,
      gas: 100_000n,
      value: native(4n * POOL_NATIVE),
      data: encodeFunctionData({ abi: wrappedNativeAbi, functionName: "deposit" }),
    }),
    send(erc20(dai, "mint", account.address, daiAmount(3n * POOL_NATIVE * NATIVE_PRICE))),
  );
  for (const key of devnetKeys.payers) {
    hashes.push(send(erc20(dai, "mint", privateKeyToAccount(key).address, DEX_TEST_TOKEN.payerMint)));
  }
  for (const spender of spenders) {
    hashes.push(send(erc20(weth, "approve", spender, maxUint256)), send(erc20(dai, "approve", spender, maxUint256)));
  }
  const daiPerPool = daiAmount(POOL_NATIVE * NATIVE_PRICE);
  hashes.push(send(addV2(dai, daiPerPool, weth, native(POOL_NATIVE))));
  const skewedDai = (daiPerPool * (100n + V3_DAI_SKEW_PERCENT)) / 100n;
  for (const call of v3PoolCalls(
    dex.v3.positionManager,
    account.address,
    [dai, skewedDai],
    [weth, native(POOL_NATIVE)],
    3000,
  )) {
    hashes.push(send(call));
  }

  const payment = await options.paymentToken;
  const paymentPerPool = POOL_NATIVE * NATIVE_PRICE * 10n ** BigInt(payment.decimals);
  hashes.push(send(erc20(payment.address, "mint", account.address, 2n * paymentPerPool)));
  for (const spender of spenders) hashes.push(send(erc20(payment.address, "approve", spender, maxUint256)));
  hashes.push(send(addV2(payment.address, paymentPerPool, weth, native(POOL_NATIVE))));
  for (const call of v3PoolCalls(
    dex.v3.positionManager,
    account.address,
    [payment.address, paymentPerPool],
    [weth, native(POOL_NATIVE)],
    500,
  )) {
    hashes.push(send(call));
  }

  await confirm(hashes);

  // The routers find the pairs and pools by init-code hash: a quote through each proves they do.
  const oneToken = 10n ** BigInt(payment.decimals);
  const [v2Amounts, v3Quote] = await Promise.all([
    publicClient.readContract({
      address: dex.v2.router,
      abi: v2RouterAbi,
      functionName: "getAmountsOut",
      args: [oneToken, [payment.address, weth, dai]],
    }),
    publicClient.simulateContract({
      address: dex.v3.quoter,
      abi: quoterV2Abi,
      functionName: "quoteExactInput",
      args: [
        encodePacked(["address", "uint24", "address", "uint24", "address"], [payment.address, 500, weth, 3000, dai]),
        oneToken,
      ],
    }),
  ]);
  if (!((v2Amounts.at(-1) ?? 0n) > 0n) || !(v3Quote.result[0] > 0n)) {
    throw new Error("the devnet DEX routers quote nothing: pair or pool addresses do not match the init-code hashes");
  }

  return {
    dex,
    tokens: {
      [DEX_TEST_TOKEN.symbol]: {
        address: dai,
        decimals: DEX_TEST_TOKEN.decimals,
        eip3009: false,
        eip2612: false,
        kind: "plain",
      },
    },
  };
}
