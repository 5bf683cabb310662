// `bun run bench:incognito`: the privacy pool's figures for docs/benchmarks.md (not a test; prints numbers).
// - proving time under Bun (snarkjs, single-threaded curve): cold = the first proof in a fresh process (curve
//   build, wasm and zkey loading included), each in its own child process; warm = later proofs in one process;
// - off-chain verify time (snarkjs groth16.verify with the committed verification key, as /wallet/incognito/verify);
// - gas of a shield and an unshield through the service (the UserOp's actualGasUsed from the bundler's receipt);
// - leaves sync for 10,000 leaves: shields inserted through the pool directly on a fresh bsc devnet, then the
//   indexing of them by a service on a fresh database (its first GET /incognito/bsc/leaves) and the client's
//   syncLeaves (10 pages over HTTP, LeanIMT rebuilt, root checked). Leaves inserted through the pool, not a
//   filled store: the indexer checks its tree against the pool's root.
import "../../src/production-env";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRelay402Client, type SignerClient } from "@relay402/client";
import { getIncognitoNetwork, shield, syncLeaves, unshield } from "@relay402/client/incognito";
import { erc20Abi, factoryAbi } from "@relay402/client/wire/abis";
import {
  buildTree,
  newNote,
  noteCommitment,
  randomFieldElement,
  unshieldInput,
} from "@relay402/client/wire/incognito/notes";
import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { proveUnshield, verifyUnshield } from "@relay402/client/wire/incognito/proof";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  maxUint256,
  parseEther,
  toHex,
} from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { CIRCUIT_ARTIFACTS } from "../../src/incognito/artifacts";
import { createBundler } from "../../src/userops/bundler";

const COLD_RUNS = 3;
const WARM_RUNS = 5;
const VERIFY_RUNS = 20;
const LEAVES = 10_000;
const SYNC_RUNS = 3;

const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)]!;
const ms = (value: number) => `${value.toFixed(0)} ms`;
const spread = (values: number[]) =>
  `median ${ms(median(values))} (min ${ms(sorted(values)[0]!)}, max ${ms(sorted(values).at(-1)!)}, ${values.length} runs)`;

/** A valid unshield input: a note in a small local tree (the circuit is fixed at depth 20, so size does not matter). */
function sampleInput() {
  const token = randomAddress();
  const note = newNote(token, 10n ** 20n);
  const leaves = [...Array.from({ length: 7 }, () => randomFieldElement()), noteCommitment(note)];
  return unshieldInput({
    note,
    tree: buildTree(leaves),
    withdrawAmount: 3n * 10n ** 19n,
    fee: 10n ** 17n,
    recipient: randomAddress(),
    feeRecipient: randomAddress(),
    change: { nullifier: randomFieldElement(), secret: randomFieldElement() },
  });
}

if (process.argv.includes("--prove-once")) {
  // Child mode: one proof from the artifact files in a fresh process; prints its time.
  const { input } = sampleInput();
  const started = performance.now();
  await proveUnshield(input, CIRCUIT_ARTIFACTS.wasm, CIRCUIT_ARTIFACTS.zkey);
  console.log(JSON.stringify({ ms: performance.now() - started }));
  process.exit(0);
}

// --- proving, cold: each in a child process of its own ---
const cold: number[] = [];
for (let i = 0; i < COLD_RUNS; i++) {
  const child = Bun.spawn([process.execPath, import.meta.path, "--prove-once"], { stdout: "pipe", stderr: "inherit" });
  const [code, out] = await Promise.all([child.exited, new Response(child.stdout).text()]);
  if (code !== 0) throw new Error(`proving child exited with ${code}`);
  cold.push(JSON.parse(out.trim().split("\n").at(-1)!).ms);
}

// --- proving, warm; off-chain verify ---
const wasm = new Uint8Array(readFileSync(CIRCUIT_ARTIFACTS.wasm));
const zkey = new Uint8Array(readFileSync(CIRCUIT_ARTIFACTS.zkey));
const verificationKey = JSON.parse(readFileSync(CIRCUIT_ARTIFACTS.verificationKey, "utf8"));
await proveUnshield(sampleInput().input, wasm, zkey);
const warm: number[] = [];
let lastProof: Awaited<ReturnType<typeof proveUnshield>> | undefined;
for (let i = 0; i < WARM_RUNS; i++) {
  const { input } = sampleInput();
  const started = performance.now();
  lastProof = await proveUnshield(input, wasm, zkey);
  warm.push(performance.now() - started);
}
const verifyTimes: number[] = [];
for (let i = 0; i <= VERIFY_RUNS; i++) {
  const started = performance.now();
  const valid = await verifyUnshield(verificationKey, lastProof!.publicSignals, lastProof!.proof);
  if (!valid) throw new Error("the proof does not verify");
  if (i > 0) verifyTimes.push(performance.now() - started);
}
console.log("relay402 incognito (privacy pool), Bun, snarkjs 0.7.6 single-threaded curve");
console.log(`proving, cold (first proof in a fresh process):  ${spread(cold)}`);
console.log(`proving, warm (same process, later proofs):      ${spread(warm)}`);
console.log(`off-chain verify (groth16.verify):              ${spread(verifyTimes)}`);

// --- the devnet part: gas, then 10,000 leaves ---
const { buildContracts } = await import("../devnet/build");
const { startDevnet } = await import("../devnet/start");
const { configFromManifest } = await import("../devnet/service-config");
const { freePort } = await import("../devnet/ports");
const { devnetChain } = await import("../devnet/chain");
const { startServer } = await import("../../src/server");

buildContracts();
const dir = mkdtempSync(join(tmpdir(), "relay402-bench-incognito-"));
const devnet = await startDevnet({ dir, quiet: true });
const network = devnet.manifest.networks.bsc;
const manifest = { ...devnet.manifest, service: `http://127.0.0.1:${await freePort()}` };
const config = configFromManifest(manifest, {
  databasePath: join(dir, "bench.sqlite"),
  rateLimitPerMinute: 10_000_000,
  logRequests: false,
});
let service: Awaited<ReturnType<typeof startServer>> | undefined;
try {
  service = await startServer(config, { silent: true });
  const chain = devnetChain(56, "bsc", network.rpcUrl);
  const transport = http(network.rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const testClient = createTestClient({ chain, transport, mode: "anvil" });
  const deployer = createWalletClient({
    chain,
    transport,
    account: privateKeyToAccount(devnet.manifest.accounts[0]!.privateKey),
  });
  const token = Object.values(network.tokens)[0]!.address as Address;
  const pool = network.privacyPool as Address;
  const bundler = createBundler(network.bundlerUrl, network.entryPoint);
  const relay402 = createRelay402Client({ url: service.url });
  const mined = async (hash: Promise<Hex>) => publicClient.waitForTransactionReceipt({ hash: await hash });

  async function deployWallet(tokens: bigint): Promise<{ owner: SignerClient; wallet: Address }> {
    const account: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey());
    const salt = toHex(crypto.getRandomValues(new Uint8Array(32)));
    const wallet = await publicClient.readContract({
      address: network.factory,
      abi: factoryAbi,
      functionName: "getAddress",
      args: [account.address, salt],
    });
    await mined(
      deployer.writeContract({
        address: network.factory,
        abi: factoryAbi,
        functionName: "createAccount",
        args: [account.address, salt],
      }),
    );
    if (tokens > 0n) {
      await mined(
        deployer.writeContract({ address: token, abi: erc20Abi, functionName: "mint", args: [wallet, tokens] }),
      );
    }
    return { owner: createWalletClient({ chain, transport, account }) as SignerClient, wallet };
  }

  const incognito = await getIncognitoNetwork(relay402, "bsc");
  const unit = 10n ** BigInt(incognito.tokens[0]!.decimals);
  const a = await deployWallet(200n * unit);
  const shielded = await shield(relay402, { ...a, network: "bsc", token, amount: 100n * unit });
  const shieldGas = (await bundler.receipt(shielded.settlement.userOpHash as Hex))?.actualGasUsed;
  const b = await deployWallet(0n);
  const firstUnshield = await unshield(relay402, {
    ...b,
    network: "bsc",
    note: shielded.note,
    withdrawAmount: 30n * unit,
    recipient: randomAddress(),
  });
  const unshieldGas = (await bundler.receipt(firstUnshield.settlement.userOpHash as Hex))?.actualGasUsed;
  const smallTree = (await syncLeaves(relay402, "bsc")).leaves.length;

  // 10,000 leaves: shields sent straight to the pool by one EOA, mined in full blocks (automine off meanwhile).
  const filler = privateKeyToAccount(generatePrivateKey());
  await testClient.setBalance({ address: filler.address, value: parseEther("1000000") });
  const fillerClient = createWalletClient({ chain, transport, account: filler });
  await mined(
    fillerClient.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: "mint",
      args: [filler.address, 10n ** 30n],
    }),
  );
  await mined(
    fillerClient.writeContract({ address: token, abi: erc20Abi, functionName: "approve", args: [pool, maxUint256] }),
  );
  const size = async () =>
    Number(await publicClient.readContract({ address: pool, abi: privacyPoolAbi, functionName: "size" }));
  // Full blocks raise the base fee; it is put back afterwards, so the next UserOp stays under the fee caps.
  const baseFee = (await publicClient.getBlock()).baseFeePerGas ?? 1_000_000_000n;
  const fillStarted = performance.now();
  let nonce = await publicClient.getTransactionCount({ address: filler.address });
  await testClient.setAutomine(false);
  try {
    for (let have = await size(); have < LEAVES; have = await size()) {
      const missing = LEAVES - have;
      for (let sent = 0; sent < missing; sent += 500) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(500, missing - sent) }, async () =>
            filler.signTransaction({
              chainId: 56,
              type: "eip1559",
              nonce: nonce++,
              to: pool,
              gas: 800_000n,
              maxFeePerGas: 100_000_000_000n,
              maxPriorityFeePerGas: 1_000_000_000n,
              data: encodeFunctionData({
                abi: privacyPoolAbi,
                functionName: "shield",
                args: [token, 1n, randomFieldElement()],
              }),
            }),
          ),
        );
        const response = await fetch(network.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(
            batch.map((raw, id) => ({ jsonrpc: "2.0", id, method: "eth_sendRawTransaction", params: [raw] })),
          ),
        });
        const answers = (await response.json()) as { error?: { message: string } }[];
        const failed = answers.find((answer) => answer.error);
        if (failed) throw new Error(`eth_sendRawTransaction: ${failed.error!.message}`);
      }
      // Mine until the filler's transactions are all in.
      for (;;) {
        await testClient.mine({ blocks: 1 });
        const mined = await publicClient.getTransactionCount({ address: filler.address });
        if (mined >= nonce) break;
      }
    }
  } finally {
    await testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: baseFee });
    await testClient.setAutomine(true);
    await testClient.mine({ blocks: 1 });
  }
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  const leavesNow = await size();

  // A second service on a fresh database indexes the pool from its start block at its first GET (the first
  // service's background indexer read the new leaves during the fill already).
  const fresh = await startServer(
    configFromManifest(
      { ...devnet.manifest, service: `http://127.0.0.1:${await freePort()}` },
      { databasePath: join(dir, "fresh.sqlite"), rateLimitPerMinute: 10_000_000, logRequests: false },
    ),
    { silent: true },
  );
  let started = performance.now();
  let indexMs: number;
  try {
    const first = await createRelay402Client({ url: fresh.url }).get<{ total: number }>("/incognito/bsc/leaves?from=0");
    indexMs = performance.now() - started;
    if (first.total !== leavesNow) throw new Error(`the service indexed ${first.total} of ${leavesNow} leaves`);
  } finally {
    await fresh.stop();
  }
  // The client's sync: 10 pages, tree rebuilt, root checked.
  const syncTimes: number[] = [];
  for (let i = 0; i < SYNC_RUNS; i++) {
    started = performance.now();
    const synced = await syncLeaves(relay402, "bsc");
    syncTimes.push(performance.now() - started);
    if (synced.leaves.length !== leavesNow) throw new Error("short sync");
  }
  // The tree alone (LeanIMT of 10,000 leaves, poseidon-lite), to tell HTTP from hashing.
  const leaves = (await syncLeaves(relay402, "bsc")).leaves;
  const treeTimes: number[] = [];
  for (let i = 0; i < SYNC_RUNS; i++) {
    started = performance.now();
    buildTree(leaves);
    treeTimes.push(performance.now() - started);
  }

  // An unshield in the 10,000-leaf tree (the pool's insert of the change note hashes up the deeper tree).
  const c = await deployWallet(0n);
  const deepUnshield = await unshield(relay402, {
    ...c,
    network: "bsc",
    note: firstUnshield.change,
    withdrawAmount: 10n * unit,
    recipient: randomAddress(),
    leaves,
  });
  const deepUnshieldGas = (await bundler.receipt(deepUnshield.settlement.userOpHash as Hex))?.actualGasUsed;

  console.log("bsc devnet (anvil automine + Alto), through the service over HTTP");
  console.log(`shield UserOp actualGasUsed:                    ${shieldGas} (approve + shield + fee transfer)`);
  console.log(`unshield UserOp actualGasUsed:                  ${unshieldGas} (its change note is leaf ${smallTree})`);
  console.log(
    `unshield UserOp actualGasUsed:                  ${deepUnshieldGas} (its change note is leaf ${leavesNow + 1})`,
  );
  console.log(`filled the pool to ${leavesNow} leaves with direct shields in ${fillSeconds.toFixed(1)} s`);
  console.log(`service indexing ${leavesNow} leaves (fresh database, first GET): ${ms(indexMs)}`);
  console.log(`client syncLeaves of ${leavesNow} leaves (10 pages):   ${spread(syncTimes)}`);
  console.log(`  the LeanIMT rebuild alone:                    ${spread(treeTimes)}`);
} finally {
  await service?.stop();
  await devnet.stop();
  rmSync(dir, { recursive: true, force: true });
}
