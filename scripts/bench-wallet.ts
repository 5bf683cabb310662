// `bun scripts/bench-wallet.ts`: smart-wallet payment figures against a fresh devnet (not a test; prints numbers
// for the README). /wallet/verify p50/p99, /wallet/settle to receipt against a direct buildSponsoredUserOp +
// eth_sendUserOperation of the same batch through the same bundler, RPC and bundler calls per verify, gas.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, createPublicClient, createWalletClient, defineChain, type Hex, http, toHex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { entryPointAbi, erc20Abi, factoryAbi } from "../src/chain/abis";
import { startService } from "../src/main";
import { createBundler, waitForUserOpReceipt } from "../src/userops/bundler";
import { buildSponsoredUserOp } from "../src/userops/sponsor";
import { toRpcUserOp, userOpHash } from "../src/userops/user-operation";
import { walletPaymentFee } from "../src/wallets/fee";
import { walletPaymentCallData } from "../src/wallets/payment-call";
import { startRpcCounter } from "./bench/rpc-counter";
import { buildContracts } from "./devnet/build";
import { devnetKeys } from "./devnet/keys";
import { freePort } from "./devnet/ports";
import { configFromManifest } from "./devnet/service-config";
import { startDevnet } from "./devnet/start";

const VERIFY_RUNS = 200;
const SETTLE_RUNS = 20;

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
const service = startService(config, { silent: true });

try {
  const chain = defineChain({
    id: 56,
    name: "bsc",
    nativeCurrency: { name: "BNB", symbol: "BNB", decimals: 18 },
    rpcUrls: { default: { http: [network.rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(network.rpcUrl) });
  const deployer = createWalletClient({
    chain,
    transport: http(network.rpcUrl),
    account: privateKeyToAccount(devnet.manifest.accounts[0]!.privateKey),
  });
  const token = network.tokens.USDT!.address;
  const tokenConfig = config.networks.bsc!.tokens[0]!;
  // The direct baseline talks to the same bundler through the same proxy, so both paths pay the same hop.
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

  // --- service: verify + settle to receipt ---
  const serviceWallet = await deployWallet();
  const settleTimes: number[] = [];
  const serviceTotal: number[] = [];
  for (let i = 0; i < SETTLE_RUNS; i++) {
    const started = performance.now();
    const verified = await post("/wallet/verify", verifyBody(serviceWallet.wallet, transfers(1)));
    const body = await signed(serviceWallet.owner, verified);
    const sending = performance.now();
    await post("/wallet/settle", body);
    settleTimes.push(performance.now() - sending);
    serviceTotal.push(performance.now() - started);
  }

  // --- direct: nonce, buildSponsoredUserOp, sign, eth_sendUserOperation, receipt (same batch, same bundler) ---
  const direct = await deployWallet();
  const paymasterSigner = privateKeyToAccount(devnetKeys.paymasterSigner);
  async function directPayment(
    owner: PrivateKeyAccount,
    wallet: Address,
    batch: { to: Address; amount: bigint }[],
    pollMs = 200,
  ) {
    const sum = batch.reduce((total, transfer) => total + transfer.amount, 0n);
    const feeAmount = walletPaymentFee(sum, tokenConfig);
    const callData = walletPaymentCallData({
      token,
      relayer: network.relayer,
      transfers: batch,
      feeRecipient: network.feeRecipient,
      feeAmount,
      totalAmount: sum + feeAmount,
    });
    const started = performance.now();
    const nonce = await publicClient.readContract({
      address: network.entryPoint,
      abi: entryPointAbi,
      functionName: "getNonce",
      args: [wallet, 0n],
    });
    const { userOp } = await buildSponsoredUserOp(
      { sender: wallet, nonce, callData },
      { bundler, chainId: 56, paymaster: network.paymaster, paymasterSigner, validitySeconds: 600 },
    );
    const hash = userOpHash(userOp, 56, network.entryPoint);
    userOp.signature = await owner.signMessage({ message: { raw: hash } });
    const sending = performance.now();
    await bundler.send(toRpcUserOp(userOp));
    const receipt = await waitForUserOpReceipt(bundler, hash, 30_000, pollMs);
    if (!receipt?.success) throw new Error("direct UserOp failed");
    return { total: performance.now() - started, send: performance.now() - sending };
  }
  const directTimes: { total: number; send: number }[] = [];
  for (let i = 0; i < SETTLE_RUNS; i++)
    directTimes.push(await directPayment(direct.owner, direct.wallet, transfers(1)));
  // Receipt polling (200 ms, as the service) quantizes both figures; a 20 ms poll shows the bundler's own floor.
  const finePoll: number[] = [];
  for (let i = 0; i < SETTLE_RUNS; i++)
    finePoll.push((await directPayment(direct.owner, direct.wallet, transfers(1), 20)).send);

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
  const settleP50 = p50(settleTimes);
  const directSendP50 = p50(directTimes.map((time) => time.send));
  const serviceTotalP50 = p50(serviceTotal);
  const directTotalP50 = p50(directTimes.map((time) => time.total));
  console.log("relay402 smart-wallet payments, bsc devnet (anvil automine + Alto), sequential requests over HTTP");
  console.log(
    `/wallet/verify, 1 transfer (${VERIFY_RUNS} runs):   p50 ${ms(p50(verifyTimes))}  p99 ${ms(percentile(verifyTimes, 99))}`,
  );
  console.log(
    `/wallet/verify, 20 transfers (50 runs):  p50 ${ms(p50(verify20Times))}  p99 ${ms(percentile(verify20Times, 99))}`,
  );
  console.log(
    `/wallet/settle to receipt (${SETTLE_RUNS} runs):       p50 ${ms(settleP50)}  p99 ${ms(percentile(settleTimes, 99))}`,
  );
  console.log(
    `direct send to receipt (${SETTLE_RUNS} runs):          p50 ${ms(directSendP50)}  p99 ${ms(
      percentile(
        directTimes.map((time) => time.send),
        99,
      ),
    )}`,
  );
  console.log(
    `direct send to receipt, 20 ms poll:        p50 ${ms(p50(finePoll))}  p99 ${ms(percentile(finePoll, 99))}`,
  );
  console.log(`  settle overhead ratio (p50):           ${(settleP50 / directSendP50).toFixed(2)}x`);
  console.log(`verify + sign + settle (${SETTLE_RUNS} runs):          p50 ${ms(serviceTotalP50)}`);
  console.log(`direct nonce + build + sign + send + receipt:  p50 ${ms(directTotalP50)}`);
  console.log(`  end-to-end overhead ratio (p50):       ${(serviceTotalP50 / directTotalP50).toFixed(2)}x`);
  console.log(
    `chain RPC per verify: ${rpcPerVerify.roundTrips} HTTP round trip(s), calls ${JSON.stringify(rpcPerVerify.calls)}`,
  );
  console.log(
    `bundler per verify:   ${bundlerPerVerify.roundTrips} HTTP round trip(s), calls ${JSON.stringify(bundlerPerVerify.calls)}`,
  );
  console.log(`actualGasUsed: 1 transfer ${gas1}, 20 transfers ${gas20}`);
} finally {
  await service.stop();
  rpc.stop();
  bundlerProxy.stop();
  await devnet.stop();
  rmSync(dir, { recursive: true, force: true });
}
