// `bun scripts/bench-wallet.ts`: smart-wallet payment figures against a fresh devnet (not a test; prints numbers
// for docs/benchmarks.md). /wallet/verify p50/p99, /wallet/settle to receipt, verify + sign + settle end to end against
// a direct permissionless `sendUserOperation` of the same batch through the same bundler (scripts/bench/
// permissionless-wallet.ts: our wallet as a viem custom smart account, our paymaster as its paymaster), RPC and
// bundler calls per verify, gas.
import "../src/production-env";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { erc20Abi, factoryAbi } from "@relay402/client/wire/abis";
import { type Call, encodeBatchExecution } from "@relay402/client/wire/execution";
import { payBatchCalls } from "@relay402/client/wire/pay-batch";
import { walletPaymentFee, withFee } from "@relay402/client/wire/wallet-fee";
import { type Address, createPublicClient, createWalletClient, type Hex, http, toHex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { startServer } from "../src/server";
import { createBundler } from "../src/userops/bundler";
import { simulateUserOpCalls } from "../src/userops/simulate";
import { userOpNetworkOf } from "../src/userops/user-op-network";
import { permissionlessWalletClient, verifyingPaymaster } from "./bench/permissionless-wallet";
import { startRpcCounter } from "./bench/rpc-counter";
import { buildContracts } from "./devnet/build";
import { devnetChain } from "./devnet/chain";
import { freePort } from "./devnet/ports";
import { configFromManifest } from "./devnet/service-config";
import { startDevnet } from "./devnet/start";

const VERIFY_RUNS = 200;
const SETTLE_RUNS = 40;
const WARMUP_RUNS = 2;
/** /wallet/settle waits with waitForUserOpReceipt's default interval; the baseline polls at the same pace. */
const SERVICE_RECEIPT_POLL_MS = 200;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

buildContracts();
const dir = mkdtempSync(join(tmpdir(), "relay402-bench-wallet-"));
const devnet = await startDevnet({ dir, quiet: true });
const network = devnet.manifest.networks.bsc;
const rpc = startRpcCounter(network.rpcUrl);
const bundlerProxy = startRpcCounter(network.bundlerUrl);
const manifest = { ...devnet.manifest, service: `http://127.0.0.1:${await freePort()}` };
manifest.networks = { ...manifest.networks, bsc: { ...network, rpcUrl: rpc.url, bundlerUrl: bundlerProxy.url } };
const config = configFromManifest(manifest, {
  databasePath: join(dir, "bench.sqlite"),
  rateLimitPerMinute: 10_000_000,
  logRequests: false,
});
const service = await startServer(config, { silent: true });

try {
  const chain = devnetChain(56, "bsc", network.rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(network.rpcUrl) });
  const deployer = createWalletClient({
    chain,
    transport: http(network.rpcUrl),
    account: privateKeyToAccount(devnet.manifest.accounts[0]!.privateKey),
  });
  const token = network.tokens.USDT!.address;
  const tokenConfig = config.networks.bsc!.tokens[0]!;
  // Receipts for the gas figures; the baseline talks to the same bundler through the same proxy as the service.
  const bundler = createBundler(bundlerProxy.url, network.entryPoint);

  async function deployWallet(): Promise<{ owner: PrivateKeyAccount; wallet: Address }> {
    const owner = privateKeyToAccount(generatePrivateKey());
    const salt = toHex(crypto.getRandomValues(new Uint8Array(32)));
    const wallet = await publicClient.readContract({
      address: network.factory,
      abi: factoryAbi,
      functionName: "getAddress",
      args: [owner.address, salt],
    });
    await publicClient.waitForTransactionReceipt({
      hash: await deployer.writeContract({
        address: network.factory,
        abi: factoryAbi,
        functionName: "createAccount",
        args: [owner.address, salt],
      }),
    });
    await publicClient.waitForTransactionReceipt({
      hash: await deployer.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: "mint",
        args: [wallet, 10n ** 30n],
      }),
    });
    return { owner, wallet };
  }

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as any;
    if (response.status !== 200) throw new Error(`${path} ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const transfers = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ to: randomAddress(), amount: 10n ** 18n + BigInt(i) }));
  const verifyBody = (wallet: Address, batch: { to: Address; amount: bigint }[]) => ({
    walletAddress: wallet,
    transactions: batch.map((transfer) => ({ to: transfer.to, amount: transfer.amount.toString(), token })),
    paymentRequirements: { network: "bsc" },
  });
  const signed = async (owner: PrivateKeyAccount, verified: any) => {
    const signature = await owner.signMessage({ message: { raw: verified.userOpHash } });
    return { userOp: { ...verified.userOp, signature }, signature };
  };

  // --- /wallet/verify latency (sequential, 1 transfer; nothing settled, so the nonce stays put) ---
  const verifier = await deployWallet();
  for (let i = 0; i < 5; i++) await post("/wallet/verify", verifyBody(verifier.wallet, transfers(1)));
  const verifyTimes: number[] = [];
  for (let i = 0; i < VERIFY_RUNS; i++) {
    const started = performance.now();
    await post("/wallet/verify", verifyBody(verifier.wallet, transfers(1)));
    verifyTimes.push(performance.now() - started);
  }
  const verify20Times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    await post("/wallet/verify", verifyBody(verifier.wallet, transfers(20)));
    verify20Times.push(performance.now() - started);
  }

  // --- calls per verify ---
  rpc.reset();
  bundlerProxy.reset();
  await post("/wallet/verify", verifyBody(verifier.wallet, transfers(1)));
  const rpcPerVerify = rpc.snapshot();
  const bundlerPerVerify = bundlerProxy.snapshot();

  // --- service (verify + sign + settle to receipt) against permissionless sendUserOperation to receipt ---
  // Baseline: the same batch from another wallet, sent by a permissionless smart account client (nonce, fees, stub
  // signatures, gas estimate, paymaster data, owner signature, eth_sendUserOperation), then its receipt. Its chain
  // reads go through the same counting proxy as the service's, its bundler calls through the same bundler proxy.
  const accountRpc = createPublicClient({ chain, transport: http(rpc.url) });
  const paymaster = verifyingPaymaster({
    paymaster: network.paymaster,
    signer: config.networks.bsc!.paymasterSigner!,
    validitySeconds: config.paymasterValiditySeconds,
  });
  /** The service's own batch (approve, then payBatch with the fee), sent through permissionless as the baseline. */
  const paymentCalls = (batch: { to: Address; amount: bigint }[]): Call[] => {
    const feeAmount = walletPaymentFee(
      batch.reduce((total, transfer) => total + transfer.amount, 0n),
      tokenConfig,
    );
    return payBatchCalls({
      token,
      relayer: network.relayer,
      payments: withFee(batch, { to: network.feeRecipient, amount: feeAmount }),
    });
  };
  // --- the kernel's simulation of a sponsored UserOp's calls: once in each verify, once more in each settle ---
  // Timed alone, through the service's own chain client and the counting proxy: what it adds to either request.
  const userOps = userOpNetworkOf(service.services.networks.get("bsc"));
  const simulatedCallData = encodeBatchExecution(paymentCalls(transfers(1)));
  for (let i = 0; i < 5; i++) await simulateUserOpCalls(userOps, verifier.wallet, simulatedCallData);
  rpc.reset();
  const simulationTimes: number[] = [];
  for (let i = 0; i < VERIFY_RUNS; i++) {
    const started = performance.now();
    await simulateUserOpCalls(userOps, verifier.wallet, simulatedCallData);
    simulationTimes.push(performance.now() - started);
  }
  const simulationCalls = rpc.snapshot();

  const direct = await deployWallet();
  const smartAccountClient = await permissionlessWalletClient({
    client: accountRpc,
    bundlerUrl: bundlerProxy.url,
    wallet: direct.wallet,
    owner: direct.owner,
    entryPoint: network.entryPoint,
    paymaster,
  });
  const serviceWallet = await deployWallet();
  async function servicePayment(batch: { to: Address; amount: bigint }[]) {
    const started = performance.now();
    const verified = await post("/wallet/verify", verifyBody(serviceWallet.wallet, batch));
    const body = await signed(serviceWallet.owner, verified);
    const sending = performance.now();
    await post("/wallet/settle", body);
    return { total: performance.now() - started, settle: performance.now() - sending };
  }
  async function permissionlessPayment(batch: { to: Address; amount: bigint }[]) {
    const calls = paymentCalls(batch);
    const started = performance.now();
    const hash = await smartAccountClient.sendUserOperation({ calls });
    const receipt = await smartAccountClient.waitForUserOperationReceipt({
      hash,
      pollingInterval: SERVICE_RECEIPT_POLL_MS,
      timeout: 30_000,
    });
    if (!receipt.success) throw new Error("permissionless UserOp reverted");
    return performance.now() - started;
  }
  // End to end is dominated by Alto's auto-bundling tick, whose interval grows with the UserOps it bundled in the
  // last minute (100 ms + 10 ms each, up to 1 s). So the two run interleaved, alternating which goes first (two
  // back-to-back loops would hand the later one a slower bundler), each after a random pause of up to that 1 s
  // (untimed), so neither keeps landing at the same point of the tick as the previous UserOp's inclusion.
  const pause = () => Bun.sleep(Math.random() * 1000);
  const settleTimes: number[] = [];
  const serviceTotal: number[] = [];
  const permissionlessTotal: number[] = [];
  for (let i = 0; i < WARMUP_RUNS + SETTLE_RUNS; i++) {
    const [serviceBatch, baselineBatch] = [transfers(1), transfers(1)];
    let service: { total: number; settle: number };
    let baseline: number;
    if (i % 2 === 0) {
      await pause();
      service = await servicePayment(serviceBatch);
      await pause();
      baseline = await permissionlessPayment(baselineBatch);
    } else {
      await pause();
      baseline = await permissionlessPayment(baselineBatch);
      await pause();
      service = await servicePayment(serviceBatch);
    }
    if (i < WARMUP_RUNS) continue;
    settleTimes.push(service.settle);
    serviceTotal.push(service.total);
    permissionlessTotal.push(baseline);
  }
  const callsOf = async (payment: () => Promise<unknown>) => {
    rpc.reset();
    bundlerProxy.reset();
    await payment();
    return { rpc: rpc.snapshot(), bundler: bundlerProxy.snapshot() };
  };
  const callsPerService = await callsOf(() => servicePayment(transfers(1)));
  const callsPerBaseline = await callsOf(() => permissionlessPayment(transfers(1)));

  // --- gas of a 1- and a 20-transfer payment through the service ---
  const gasWallet = await deployWallet();
  const gasOf = async (count: number) => {
    const verified = await post("/wallet/verify", verifyBody(gasWallet.wallet, transfers(count)));
    await post("/wallet/settle", await signed(gasWallet.owner, verified));
    const receipt = await bundler.receipt(verified.userOpHash as Hex);
    return receipt?.actualGasUsed ?? 0n;
  };
  const gas1 = await gasOf(1);
  const gas20 = await gasOf(20);

  const p50 = (values: number[]) => percentile(values, 50);
  const p99 = (values: number[]) => percentile(values, 99);
  const figures = (values: number[]) => `p50 ${ms(p50(values))}  p99 ${ms(p99(values))}`;
  console.log("relay402 smart-wallet payments, bsc devnet (anvil automine + Alto), sequential requests over HTTP");
  console.log(`/wallet/verify, 1 transfer (${VERIFY_RUNS} runs):            ${figures(verifyTimes)}`);
  console.log(`/wallet/verify, 20 transfers (50 runs):           ${figures(verify20Times)}`);
  console.log(`/wallet/settle to receipt (${SETTLE_RUNS} runs):                ${figures(settleTimes)}`);
  console.log(`verify + sign + settle to receipt (${SETTLE_RUNS} runs):        ${figures(serviceTotal)}`);
  console.log(`permissionless sendUserOperation to receipt (${SETTLE_RUNS} runs): ${figures(permissionlessTotal)}`);
  console.log(
    `  end-to-end overhead ratio:                       p50 ${(p50(serviceTotal) / p50(permissionlessTotal)).toFixed(2)}x  p99 ${(
      p99(serviceTotal) / p99(permissionlessTotal)
    ).toFixed(2)}x`,
  );
  console.log(
    `  (interleaved, random phase; both poll receipts every ${SERVICE_RECEIPT_POLL_MS} ms; ${WARMUP_RUNS} warm-up runs each not counted)`,
  );
  const calls = (label: string, counted: { roundTrips: number; calls: Record<string, number> }) =>
    console.log(`${label} ${counted.roundTrips} HTTP round trip(s), calls ${JSON.stringify(counted.calls)}`);
  calls("chain RPC per verify:               ", rpcPerVerify);
  calls("bundler per verify:                 ", bundlerPerVerify);
  calls("chain RPC per verify + settle:      ", callsPerService.rpc);
  calls("bundler per verify + settle:        ", callsPerService.bundler);
  calls("chain RPC per permissionless send:  ", callsPerBaseline.rpc);
  calls("bundler per permissionless send:    ", callsPerBaseline.bundler);
  console.log(`actualGasUsed: 1 transfer ${gas1}, 20 transfers ${gas20}`);
  console.log(
    `kernel simulation (eth_call from the EntryPoint, ${VERIFY_RUNS} runs): ${figures(simulationTimes)}, ` +
      `${simulationCalls.roundTrips / VERIFY_RUNS} round trip each; added once to every verify and once to every settle`,
  );
} finally {
  await service.stop();
  rpc.stop();
  bundlerProxy.stop();
  await devnet.stop();
  rmSync(dir, { recursive: true, force: true });
}
