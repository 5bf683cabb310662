// `bun run bench:swap`: swap figures for docs/benchmarks.md (not a test; prints numbers), on a fresh bsc devnet.
// - /swap/quote latency p50/p99 for the four route kinds the devnet seeds (V3 direct M→W, V3 two-hop M→DAI,
//   V2 direct DAI→W, V2 two-hop DAI→M), and the JSON-RPC round trips per quote counted at the RPC (a counting
//   proxy between the service and anvil, as bench:speed and bench:x402 do);
// - gas per swap: swapWithAuthorization settled through the service (the transaction's gasUsed) against the same
//   swap done by the user directly on the router (V2 swapExactTokensForTokens, V3 exactInput), same route, same
//   net amount in and minimum out, both to a fresh recipient, both from max allowances;
// - a wallet swap UserOp's actualGasUsed through /wallet/swap/verify and /wallet/swap/settle, when the service
//   serves them (else it says so and prints the forge snapshot figure, snapshots/walletSwap.json).
//
// The service runs in a child process of its own (relay402-process.ts), so the latency is not the load
// generator's and its RPC calls are the only ones the proxy sees.
import "../../src/production-env";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { erc20Abi, factoryAbi } from "@relay402/client/wire/abis";
import { swapRouter02Abi, v2RouterAbi } from "@relay402/client/wire/swap/abis";
import { encodePath } from "@relay402/client/wire/swap/path";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  maxUint256,
  parseEther,
  toHex,
} from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { createBundler } from "../../src/userops/bundler";
import { devnetChain } from "../devnet/chain";
import { benchServiceConfig, type Cleanups, progress, startBenchDevnet } from "./bench-devnet";
import { type Child, startChild } from "./child";
import { startRpcCounter } from "./rpc-counter";
import { median, percentile } from "./stats";

const QUOTES = 100;
const WARM_UP = 5;
/** Swaps measured per pair and side, after one that is not: the first pays for slots going from zero (the fee
 * recipient's first balance of a token), which later swaps do not. */
const GAS_RUNS = 5;

type Hop = { dex: string; kind: "v2" | "v3"; tokenIn: Address; tokenOut: Address; fee?: number };
type Quote = { fee: string; buyAmount: string; minBuyAmount: string; route: Hop[]; path: string; typedData?: any };

const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const ms = (value: number) => `${value.toFixed(1)} ms`;
const step = progress();

const cleanups: Cleanups = [];
try {
  step("building contracts, starting the devnet");
  const { devnet, dir } = await startBenchDevnet("bench-swap", cleanups);
  const network = devnet.manifest.networks.bsc;
  const dex = network.dex;
  const dai = network.tokens.DAI?.address as Address | undefined;
  if (!dex || !dai) throw new Error("the devnet has no DEX");
  const m = Object.values(network.tokens)[0]!.address as Address;
  const w = dex.wrappedNative;

  const counter = startRpcCounter(network.rpcUrl);
  cleanups.push(() => counter.stop());
  const config = await benchServiceConfig(devnet.manifest, "bsc", counter.url, join(dir, "bench.sqlite"));
  // No privacy pool: the leaf indexer's 5-s reads would be counted per quote.
  delete config.networks.bsc!.contracts.privacyPool;

  step("devnet up; starting the service");
  const service: Child = await startChild(join(import.meta.dir, "relay402-process.ts"), {
    RELAY402_BENCH_CONFIG: JSON.stringify(config),
  });
  cleanups.push(() => service.stop());
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body, (_, value) => (typeof value === "bigint" ? value.toString() : value)),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  const chain = devnetChain(network.chainId, "bsc", network.rpcUrl);
  const transport = http(network.rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const testClient = createTestClient({ chain, transport, mode: "anvil" });
  const mined = async (hash: Hex | Promise<Hex>) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash, pollingInterval: 50 });
    if (receipt.status !== "success") throw new Error(`transaction ${receipt.transactionHash} reverted`);
    return receipt;
  };
  /**
   * A block one second after the latest, before each measured swap: a pool's price accumulators (V2 cumulative
   * prices, V3 observations) are written only by the first trade of a second, so without it a swap mined in the
   * same second as the previous one on its pool would be measured 5-20k cheaper, by chance. On a live chain a
   * pool's last trade is usually in an earlier block, so this is the common case.
   */
  const nextSecond = async () => {
    await testClient.increaseTime({ seconds: 1 });
    await testClient.mine({ blocks: 1 });
  };
  /** A fresh account with gas, `amount` of M and DAI (both mints are public), and max approvals to `spenders`. */
  async function fundedAccount(amount: bigint, spenders: Address[]) {
    const account = privateKeyToAccount(generatePrivateKey());
    const wallet = createWalletClient({ chain, transport, account });
    await testClient.setBalance({ address: account.address, value: parseEther("10") });
    for (const token of [m, dai!]) {
      await mined(
        wallet.writeContract({ address: token, abi: erc20Abi, functionName: "mint", args: [account.address, amount] }),
      );
      for (const spender of spenders) {
        await mined(
          wallet.writeContract({ address: token, abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }),
        );
      }
    }
    return { account, wallet };
  }

  const unit = 10n ** 18n;
  const pairs = [
    { label: "V3 direct   M -> W  ", sellToken: m, buyToken: w, kind: "v3", hops: 1 },
    { label: "V3 two-hop  M -> DAI", sellToken: m, buyToken: dai, kind: "v3", hops: 2 },
    { label: "V2 direct   DAI -> W", sellToken: dai, buyToken: w, kind: "v2", hops: 1 },
    { label: "V2 two-hop  DAI -> M", sellToken: dai, buyToken: m, kind: "v2", hops: 2 },
  ] as const;
  const sellAmount = 40n * unit;
  const quoteBody = (pair: (typeof pairs)[number], extra: Record<string, unknown> = {}) => ({
    network: "bsc",
    sellToken: pair.sellToken,
    buyToken: pair.buyToken,
    sellAmount: sellAmount.toString(),
    ...extra,
  });

  // ---- /swap/quote: latency and RPC round trips, sequential, one pair at a time ----
  console.log(`relay402 swaps, bsc devnet (anvil automine), service in its own process, ${QUOTES} quotes per pair`);
  console.log("\n/swap/quote (no typed data), sequential");
  for (const pair of pairs) {
    for (let i = 0; i < WARM_UP; i++) await post("/swap/quote", quoteBody(pair));
    const first = await post("/swap/quote", quoteBody(pair));
    const route = (first.body as Quote).route;
    if (first.status !== 200 || route.length !== pair.hops || route.some((hop) => hop.kind !== pair.kind)) {
      throw new Error(`${pair.label}: unexpected quote ${JSON.stringify(first.body)}`);
    }
    counter.reset();
    const latencies: number[] = [];
    for (let i = 0; i < QUOTES; i++) {
      const started = performance.now();
      const answer = await post("/swap/quote", quoteBody(pair));
      latencies.push(performance.now() - started);
      if (answer.status !== 200) throw new Error(`quote failed: ${JSON.stringify(answer.body)}`);
    }
    const rpc = counter.snapshot();
    const calls = Object.entries(rpc.calls)
      .map(([method, count]) => `${method} ${(count / QUOTES).toFixed(2)}`)
      .join(", ");
    console.log(
      `  ${pair.label}: p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}; JSON-RPC per quote ${(rpc.roundTrips / QUOTES).toFixed(2)} round trips (${calls})`,
    );
  }

  // ---- gas: the relayer's swapWithAuthorization through the service vs the user's own router call ----
  step("gas per swap");
  console.log(
    `\nGas per swap (transaction gasUsed, median of ${GAS_RUNS} after one warm-up swap; ${sellAmount / unit} tokens sold, fresh recipient, max allowances)`,
  );
  const payer = await fundedAccount(10_000n * unit, [network.relayer]);
  const user = await fundedAccount(10_000n * unit, [dex.v2.router, dex.v3.router]);
  const gas: Record<string, { relayer: number[]; direct: number[] }> = {};
  for (const pair of pairs) {
    const figures = { relayer: [] as number[], direct: [] as number[] };
    gas[pair.label] = figures;
    for (let run = 0; run <= GAS_RUNS; run++) {
      const quoted = await post(
        "/swap/quote",
        quoteBody(pair, { mode: "eoa", from: payer.account.address, recipient: randomAddress() }),
      );
      const quote = quoted.body as Quote;
      const { domain, types, primaryType, message } = quote.typedData;
      const signature = await payer.account.signTypedData({ domain, types, primaryType, message });
      await nextSecond();
      const settled = await post("/swap/settle", {
        swapPayload: { authorization: message, signature, path: quote.path },
        swapRequirements: { network: "bsc", relayerContract: network.relayer },
      });
      if (settled.status !== 200) throw new Error(`swap settle failed: ${JSON.stringify(settled.body)}`);
      const receipt = await publicClient.getTransactionReceipt({ hash: settled.body.transaction });
      if (run > 0) figures.relayer.push(Number(receipt.gasUsed));

      // The same route, net amount and minimum, sent by the user to the router itself.
      const amountIn = sellAmount - BigInt(quote.fee);
      const minimum = BigInt(quote.minBuyAmount);
      const recipient = randomAddress();
      const hops = quote.route;
      await nextSecond();
      const direct =
        pair.kind === "v2"
          ? user.wallet.writeContract({
              address: dex.v2.router,
              abi: v2RouterAbi,
              functionName: "swapExactTokensForTokens",
              args: [
                amountIn,
                minimum,
                [hops[0]!.tokenIn, ...hops.map((hop) => hop.tokenOut)],
                recipient,
                BigInt(message.validBefore),
              ],
            })
          : user.wallet.writeContract({
              address: dex.v3.router,
              abi: swapRouter02Abi,
              functionName: "exactInput",
              args: [{ path: encodePath("v3", hops), recipient, amountIn, amountOutMinimum: minimum }],
            });
      const directGas = Number((await mined(direct)).gasUsed);
      if (run > 0) figures.direct.push(directGas);
    }
    const relayer = median(figures.relayer);
    const direct = median(figures.direct);
    console.log(
      `  ${pair.label}: relayer swapWithAuthorization ${relayer}, user's ${pair.kind === "v2" ? "swapExactTokensForTokens" : "exactInput"} ${direct} (${(relayer / direct).toFixed(2)}x, +${relayer - direct})`,
    );
  }

  // ---- a wallet swap UserOp, when the service serves it ----
  step("wallet swap");
  console.log(
    "\nWallet swap UserOp (/wallet/swap/verify, /wallet/swap/settle; actualGasUsed from the bundler's receipt)",
  );
  const probe = await post("/wallet/swap/verify", {});
  if (probe.status === 404) {
    const snapshot = JSON.parse(readFileSync(join(import.meta.dir, "../../snapshots/walletSwap.json"), "utf8"));
    console.log(
      "  this service has no /wallet/swap routes: forge snapshot figures (snapshots/walletSwap.json) instead",
    );
    console.log(
      `  V2 direct ${snapshot.walletSwap_v2_direct_actualGasUsed}, V3 direct ${snapshot.walletSwap_v3_direct_actualGasUsed}`,
    );
  } else {
    const bundler = createBundler(network.bundlerUrl, network.entryPoint);
    const deployer = createWalletClient({
      chain,
      transport,
      account: privateKeyToAccount(devnet.manifest.accounts[0]!.privateKey),
    });
    for (const pair of pairs) {
      const owner: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey());
      const salt = toHex(crypto.getRandomValues(new Uint8Array(32)));
      const wallet = await publicClient.readContract({
        address: network.factory,
        abi: factoryAbi,
        functionName: "getAddress",
        args: [owner.address, salt],
      });
      await mined(
        deployer.writeContract({
          address: network.factory,
          abi: factoryAbi,
          functionName: "createAccount",
          args: [owner.address, salt],
        }),
      );
      await mined(
        deployer.writeContract({
          address: pair.sellToken,
          abi: erc20Abi,
          functionName: "mint",
          args: [wallet, 10_000n * unit],
        }),
      );
      // Also keeps the bundler's gas estimate (at the latest block) and the execution (the next one) in the same
      // case: estimated in the second of the pool's last trade and mined in the next, the swap pays for the
      // accumulator writes its callGasLimit left out, and the UserOp runs out of gas (seen in this bench).
      await nextSecond();
      const verified = await post("/wallet/swap/verify", {
        walletAddress: wallet,
        swap: { sellToken: pair.sellToken, buyToken: pair.buyToken, sellAmount: sellAmount.toString() },
        paymentRequirements: { network: "bsc" },
      });
      if (verified.status !== 200 || !verified.body.isValid) {
        throw new Error(`wallet swap verify failed: ${JSON.stringify(verified.body)}`);
      }
      const signature = await owner.signMessage({ message: { raw: verified.body.userOpHash as Hex } });
      const settled = await post("/wallet/swap/settle", { userOp: { ...verified.body.userOp, signature }, signature });
      if (settled.status !== 200) throw new Error(`wallet swap settle failed: ${JSON.stringify(settled.body)}`);
      const receipt = await bundler.receipt(verified.body.userOpHash as Hex);
      console.log(
        `  ${pair.label}: actualGasUsed ${receipt?.actualGasUsed} (approve + swapBatch, fresh wallet and recipient)`,
      );
    }
  }
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
// Sockets of the load generator would keep the process alive.
process.exit(0);
