// bench:x402's sponsored lanes (sponsored-lanes.ts): payments settled one at a time (automine) on the base devnet,
// x402 Permit2 payloads signed by @x402/evm's own client and relay402's own EOA body, in lanes:
//   - the plain path, the payer's allowance already there (on the plain token and on the permit token);
//   - an EIP-2612 permit from a new payer holding only the permit token, submitted with the payment in one
//     transaction (x402's eip2612GasSponsoring: the proxy's settleWithPermit; the relayer's
//     transferWithAuthorizationWithPermit);
//   - a signed approve from a new payer holding only the plain token and 0 native coins, funded by the operator
//     and broadcast before the settlement (x402's erc20ApprovalGasSponsoring; the EOA body's funded approve).
// Per lane and side: JSON-RPC round trips and facilitator CPU per settle, gas of each transaction from the
// receipts (the funding transfer and the approve apart from the settlement), and what the operator spends per
// payment at the devnet's fee. The reference runs the x402 lanes but the funded approve: its
// erc20ApprovalGasSponsoring needs an operator-written signer (`sendTransactions`) and funds nobody.
import { erc20Abi } from "@relay402/client/wire/abis";
import {
  type Address,
  createTestClient,
  createWalletClient,
  formatEther,
  formatGwei,
  type Hex,
  http,
  keccak256,
  maxUint256,
  parseTransaction,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { tokenFunder } from "./burst";
import type { Child } from "./child";
import { postJson } from "./load";
import { cpuMsOf } from "./proc";
import type { startRpcCounter } from "./rpc-counter";
import { type Body, LANES, type Lane, type LaneSignerDeps, laneSigner, spenderOf } from "./sponsored-lanes";
import { median, perMethod } from "./stats";
import type { createReport, Side } from "./vs-x402-report";

type Deps = LaneSignerDeps & {
  children: Record<Side, Child>;
  counters: Record<Side, ReturnType<typeof startRpcCounter>>;
  record: ReturnType<typeof createReport>["record"];
  details: string[];
  /** Settles measured per lane and side (one more runs first, unmeasured). */
  settles: number;
  order: Side[];
  lastRun: boolean;
  step: (what: string) => void;
};

/** A value transfer the operator sent a payer (a funded approve's funding), with what its gas cost. */
type Funding = { to: Address; value: bigint; fee: bigint };

export async function sponsoredLanes(deps: Deps) {
  const { chain, rpcUrl, publicClient, tokens, record } = deps;
  const transport = http(rpcUrl);
  const testClient = createTestClient({ chain, transport, mode: "anvil" });
  const minter = privateKeyToAccount(generatePrivateKey());
  await testClient.setBalance({ address: minter.address, value: 10n ** 20n });
  const minterWallet = createWalletClient({ chain, transport, account: minter });
  const mint = async (token: Address, to: Address, amount: bigint) => {
    const hash = await minterWallet.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: "mint",
      args: [to, amount],
    });
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  };
  // The merchant already holds each token, as a shop does (every settle writes a warm balance, as in vs-x402.ts).
  for (const token of Object.values(tokens)) await mint(token, deps.merchant, 1n);

  const sign = laneSigner(deps);

  async function bodiesFor(lane: Lane, count: number): Promise<Body[]> {
    const amount = 10n ** BigInt(lane.decimals + 3);
    if (lane.payer === "allowed") {
      const spender = spenderOf(lane, deps.relayer);
      const fund = tokenFunder({ chain, rpcUrl, token: tokens[lane.token], spender });
      const key = generatePrivateKey();
      await fund(key, amount, maxUint256);
      return Promise.all(Array.from({ length: count }, () => sign(key, lane)));
    }
    const bodies: Body[] = [];
    for (let i = 0; i < count; i++) {
      const key = generatePrivateKey();
      await mint(tokens[lane.token], privateKeyToAccount(key).address, amount);
      bodies.push(await sign(key, lane));
    }
    return bodies;
  }

  const settle = async (side: Side, body: Body) => {
    const { status, json } = await postJson(
      `${deps.children[side].url}/settle`,
      body.json,
      AbortSignal.timeout(60_000),
    );
    // An x402 answer says success; relay402's EOA answer is a 200 with the transaction.
    if (status === 200 && json.success !== false && json.transaction)
      return { ok: true as const, transaction: json.transaction as Hex };
    return { ok: false as const, reason: String(json.errorReason ?? json.code ?? json.error ?? `HTTP ${status}`) };
  };

  const receipt = (hash: Hex) => publicClient.getTransactionReceipt({ hash });
  const ms = { unit: "ms", digits: 1 };
  const count = { unit: "", digits: 0 };
  const devnetFees: string[] = [];

  for (const lane of LANES)
    for (const side of deps.order.filter((candidate) => lane.sides.includes(candidate))) {
      const sides = { sides: lane.sides };
      deps.step(`${side}: sponsored lane ${lane.key}, settle ×${deps.settles}, concurrency 1`);
      const [warmUp, ...bodies] = await bodiesFor(lane, deps.settles + 1);
      if (warmUp) await settle(side, warmUp);
      const pid = deps.children[side].pid;
      const firstBlock = (await publicClient.getBlockNumber({ cacheTime: 0 })) + 1n;
      deps.counters[side].reset();
      const cpuBefore = cpuMsOf(pid);
      const outcomes: Awaited<ReturnType<typeof settle>>[] = [];
      for (const body of bodies) outcomes.push(await settle(side, body));
      const cpuMs = cpuMsOf(pid) - cpuBefore;
      const rpc = deps.counters[side].snapshot();
      const lastBlock = await publicClient.getBlockNumber({ cacheTime: 0 });

      const failures = outcomes.flatMap((o) => (o.ok ? [] : [o.reason]));
      if (failures.length) console.log(`  ${side} ${lane.key}: ${failures.length} refused: ${failures.join(", ")}`);
      const settled = bodies.flatMap((body, i) => {
        const outcome = outcomes[i];
        return outcome?.ok ? [{ body, hash: outcome.transaction }] : [];
      });
      const settleReceipts = await Promise.all(settled.map(({ hash }) => receipt(hash)));
      const trips = rpc.roundTrips / bodies.length;
      record(
        `sponsored.ok.${lane.key}`,
        { label: `${lane.label}: succeeded of ${bodies.length}`, ...count, ...sides },
        side,
        settled.length,
      );
      record(
        `sponsored.rpc.${lane.key}`,
        { label: `JSON-RPC round trips per settle, ${lane.label}`, unit: "", digits: 2, ...sides },
        side,
        trips,
      );
      record(
        `sponsored.cpu.${lane.key}`,
        { label: `facilitator CPU per settle, ${lane.label}`, ...ms, ...sides },
        side,
        cpuMs / bodies.length,
      );
      record(
        `sponsored.gas.${lane.key}`,
        { label: `gas per settle (the settling transaction), ${lane.label}`, ...count, ...sides },
        side,
        median(settleReceipts.map((r) => Number(r.gasUsed))),
      );

      // What the operator sent to the payers in the lane's blocks: the funded approves' fundings.
      const payers = new Set(settled.map(({ body }) => body.payer.toLowerCase()));
      const fundings: (Funding & { gasUsed: bigint })[] = [];
      if (lane.sponsoring === "approve")
        for (let number = firstBlock; number <= lastBlock; number++) {
          const block = await publicClient.getBlock({ blockNumber: number, includeTransactions: true });
          for (const tx of block.transactions)
            if (tx.to && payers.has(tx.to.toLowerCase()) && tx.value > 0n) {
              const mined = await receipt(tx.hash);
              fundings.push({
                to: tx.to,
                value: tx.value,
                gasUsed: mined.gasUsed,
                fee: mined.gasUsed * mined.effectiveGasPrice,
              });
            }
        }
      // Per payment: its settlement's fee, and the fundings sent to its payer with their own fees.
      const costs = settled.map(({ body }, i) => {
        const mined = settleReceipts[i] as { gasUsed: bigint; effectiveGasPrice: bigint };
        const toPayer = fundings.filter((f) => f.to.toLowerCase() === body.payer.toLowerCase());
        return toPayer.reduce((sum, f) => sum + f.value + f.fee, mined.gasUsed * mined.effectiveGasPrice);
      });
      record(
        `sponsored.cost.${lane.key}`,
        {
          label: `operator's cost per payment (settle's fee + funding sent + the funding's fee), ${lane.label}`,
          unit: "gwei",
          digits: 0,
          ...sides,
        },
        side,
        median(costs.map((wei) => Number(wei) / 1e9)),
      );

      if (lane.sponsoring === "approve") {
        const approves = await Promise.all(
          settled.flatMap(({ body }) => (body.signedApprove ? [receipt(keccak256(body.signedApprove))] : [])),
        );
        const relayOnly = { sides: ["relay402"] as Side[] };
        record(
          `sponsored.gas.approve.${lane.key}`,
          { label: `gas of the payer's funded approve (paid from the funding), ${lane.label}`, ...count, ...relayOnly },
          side,
          median(approves.map((r) => Number(r.gasUsed))),
        );
        record(
          `sponsored.gas.funding.${lane.key}`,
          { label: `gas of the funding transfer (operator → new payer), ${lane.label}`, ...count, ...relayOnly },
          side,
          median(fundings.map((f) => Number(f.gasUsed))),
        );
        const funded = median(fundings.map((f) => Number(f.value)));
        record(
          `sponsored.funding.wei.${lane.key}`,
          {
            label: `funding sent per new payer (approve's gas limit × max fee), ${lane.label}`,
            unit: "wei",
            digits: 0,
            ...relayOnly,
          },
          side,
          funded,
        );
        record(
          `sponsored.funding.native.${lane.key}`,
          { label: `funding sent per new payer, in ETH, ${lane.label}`, unit: "ETH", digits: 9, ...relayOnly },
          side,
          Number.isFinite(funded) ? Number(formatEther(BigInt(Math.round(funded)))) : Number.NaN,
        );
        const signed = settled[0]?.body.signedApprove;
        if (signed) {
          const approve = parseTransaction(signed);
          const block = await publicClient.getBlock({ blockNumber: lastBlock });
          devnetFees.push(
            `devnet fee at the sponsored lanes (${lane.key}): base fee ${formatGwei(block.baseFeePerGas ?? 0n)} gwei; the approve: gas limit ${approve.gas}, max fee ${formatGwei(approve.maxFeePerGas ?? 0n)} gwei, so a funding of ${approve.gas && approve.maxFeePerGas ? approve.gas * approve.maxFeePerGas : "?"} wei (the funding is at most relay402's cap, maxGas × maxFeePerGasGwei: 100,000 × 5 gwei = 0.0005 ETH by default)`,
          );
        }
      }
      if (deps.lastRun)
        deps.details.push(
          `${side}, sponsored ${lane.key}: ${trips.toFixed(2)} round trips per settle; calls per settle by method: ${perMethod(rpc.calls, bodies.length)}`,
        );
      console.log(
        `  ${side} ${lane.label}: ${settled.length}/${bodies.length} settled, CPU ${(cpuMs / bodies.length).toFixed(1)} ms and ${trips.toFixed(2)} round trips per settle`,
      );
    }
  if (deps.lastRun) deps.details.push(...devnetFees);
}
