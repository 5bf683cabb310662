// bench:x402's sponsored lanes: x402 Permit2 payments settled one at a time (automine) on the base devnet, each
// payload signed by @x402/evm's own exact client, in four lanes:
//   - plain Permit2, the payer's allowance to Permit2 already there (on the plain token and on the permit token);
//   - Permit2 + eip2612GasSponsoring: a new payer holding only the permit token, its EIP-2612 permit submitted
//     with the payment in one transaction (x402's proxy settleWithPermit);
//   - Permit2 + erc20ApprovalGasSponsoring: a new payer holding only the plain token and 0 native coins, its signed
//     approve funded by the operator and broadcast before the settlement (relay402's funded approve).
// Per lane and side: JSON-RPC round trips and facilitator CPU per settle, gas of each transaction from the
// receipts (the funding transfer and the approve apart from the settlement), and what the operator spends per
// payment at the devnet's fee. The reference runs the first three: its erc20ApprovalGasSponsoring needs an
// operator-written signer (`sendTransactions`) and funds nobody, so there is no reference to measure there.

import { erc20Abi } from "@relay402/client/wire/abis";
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { declareEip2612GasSponsoringExtension, declareErc20ApprovalGasSponsoringExtension } from "@x402/extensions";
import {
  type Address,
  type Chain,
  createTestClient,
  createWalletClient,
  formatEther,
  formatGwei,
  type Hex,
  http,
  keccak256,
  maxUint256,
  type PublicClient,
  parseTransaction,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { PERMIT2 } from "../../src/x402/permit2";
import { tokenFunder } from "./burst";
import type { Child } from "./child";
import { postJson } from "./load";
import { cpuMsOf } from "./proc";
import type { startRpcCounter } from "./rpc-counter";
import { median, perMethod } from "./stats";
import type { createReport, Side } from "./vs-x402-report";

/** The devnet's tokens the lanes pay in: TestUSDT (plain ERC-20, 18 decimals), TestPermitToken (EIP-2612 only). */
export type SponsoredTokens = { plain: Address; permit: Address };

/** TestPermitToken's EIP-712 domain (contracts/test-tokens/TestPermitToken.sol), which x402's client signs over. */
const PERMIT_TOKEN_DOMAIN = { name: "Permit USD", version: "1" };

type Lane = {
  key: string;
  label: string;
  token: keyof SponsoredTokens;
  decimals: number;
  /** "allowed": one payer that approved Permit2 itself; "new": a new key per payment, holding only the token. */
  payer: "allowed" | "new";
  extension?: "eip2612GasSponsoring" | "erc20ApprovalGasSponsoring";
  sides: Side[];
};

const LANES: Lane[] = [
  {
    key: "plain.usdt",
    label: "Permit2, allowance already there (USDT)",
    token: "plain",
    decimals: 18,
    payer: "allowed",
    sides: ["relay402", "reference"],
  },
  {
    key: "plain.pusd",
    label: "Permit2, allowance already there (PUSD)",
    token: "permit",
    decimals: 6,
    payer: "allowed",
    sides: ["relay402", "reference"],
  },
  {
    key: "eip2612",
    label: "Permit2 + eip2612GasSponsoring, new payer (PUSD)",
    token: "permit",
    decimals: 6,
    payer: "new",
    extension: "eip2612GasSponsoring",
    sides: ["relay402", "reference"],
  },
  {
    key: "erc20approval",
    label: "Permit2 + erc20ApprovalGasSponsoring, new payer with 0 native (USDT)",
    token: "plain",
    decimals: 18,
    payer: "new",
    extension: "erc20ApprovalGasSponsoring",
    sides: ["relay402"],
  },
];

const DECLARATIONS = {
  eip2612GasSponsoring: declareEip2612GasSponsoringExtension(),
  erc20ApprovalGasSponsoring: declareErc20ApprovalGasSponsoringExtension(),
};

type Deps = {
  chain: Chain;
  rpcUrl: string;
  publicClient: PublicClient;
  tokens: SponsoredTokens;
  merchant: Address;
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

type Body = { json: string; payer: Address; signedApprove?: Hex };
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

  const requirementsOf = (lane: Lane): PaymentRequirements => ({
    scheme: "exact",
    network: `eip155:${chain.id}`,
    asset: tokens[lane.token],
    // 0.3 token: above relay402's smallest payment a funded approve may onboard (0.1 token by default).
    amount: ((3n * 10n ** BigInt(lane.decimals)) / 10n).toString(),
    payTo: deps.merchant,
    maxTimeoutSeconds: 600,
    extra: { assetTransferMethod: "permit2", ...(lane.token === "permit" ? PERMIT_TOKEN_DOMAIN : {}) },
  });

  /** A payload as @x402/evm's client signs it, reading the chain (allowance, nonces, fees) as a buyer's does. */
  async function sign(key: Hex, lane: Lane): Promise<Body> {
    const account = privateKeyToAccount(key);
    const client = registerExactEvmScheme(new x402Client(), {
      signer: account,
      schemeOptions: { [chain.id]: { rpcUrl } } as never,
    });
    client.setSpendControls({ allowedAssets: true }); // the devnet's tokens are not among x402's default assets
    const requirements = requirementsOf(lane);
    const payload: PaymentPayload = await client.createPaymentPayload({
      x402Version: 2,
      resource: { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" },
      accepts: [requirements],
      ...(lane.extension ? { extensions: DECLARATIONS[lane.extension] } : {}),
    } as never);
    const extension = lane.extension ? payload.extensions?.[lane.extension] : undefined;
    // A lane whose payload lacks its extension would measure the plain path under the sponsored label.
    if (lane.extension && !extension) throw new Error(`${lane.key}: @x402/evm signed no ${lane.extension}`);
    const signedApprove = (extension as { info?: { signedTransaction?: Hex } } | undefined)?.info?.signedTransaction;
    const json = JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
    return { json, payer: account.address, ...(signedApprove ? { signedApprove } : {}) };
  }

  async function bodiesFor(lane: Lane, count: number): Promise<Body[]> {
    const amount = 10n ** BigInt(lane.decimals + 3);
    if (lane.payer === "allowed") {
      const fund = tokenFunder({ chain, rpcUrl, token: tokens[lane.token], spender: PERMIT2 });
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
    if (json.success === true) return { ok: true as const, transaction: json.transaction as Hex };
    return { ok: false as const, reason: String(json.errorReason ?? json.code ?? json.error ?? `HTTP ${status}`) };
  };

  const receipt = (hash: Hex) => publicClient.getTransactionReceipt({ hash });
  const ms = { unit: "ms", digits: 1 };
  const count = { unit: "", digits: 0 };
  let devnetFees: string | undefined;

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
      if (lane.extension === "erc20ApprovalGasSponsoring")
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

      if (lane.extension === "erc20ApprovalGasSponsoring") {
        const approves = await Promise.all(
          settled.flatMap(({ body }) => (body.signedApprove ? [receipt(keccak256(body.signedApprove))] : [])),
        );
        const relayOnly = { sides: ["relay402"] as Side[] };
        record(
          "sponsored.gas.approve",
          { label: "gas of the payer's funded approve (paid from the funding)", ...count, ...relayOnly },
          side,
          median(approves.map((r) => Number(r.gasUsed))),
        );
        record(
          "sponsored.gas.funding",
          { label: "gas of the funding transfer (operator → new payer)", ...count, ...relayOnly },
          side,
          median(fundings.map((f) => Number(f.gasUsed))),
        );
        const funded = median(fundings.map((f) => Number(f.value)));
        record(
          "sponsored.funding.wei",
          { label: "funding sent per new payer (approve's gas limit × max fee)", unit: "wei", digits: 0, ...relayOnly },
          side,
          funded,
        );
        record(
          "sponsored.funding.native",
          { label: "funding sent per new payer, in ETH", unit: "ETH", digits: 9, ...relayOnly },
          side,
          Number.isFinite(funded) ? Number(formatEther(BigInt(Math.round(funded)))) : Number.NaN,
        );
        const signed = settled[0]?.body.signedApprove;
        if (signed) {
          const approve = parseTransaction(signed);
          const block = await publicClient.getBlock({ blockNumber: lastBlock });
          devnetFees = `devnet fee at the sponsored lanes: base fee ${formatGwei(block.baseFeePerGas ?? 0n)} gwei; @x402/evm's approve: gas limit ${approve.gas}, max fee ${formatGwei(approve.maxFeePerGas ?? 0n)} gwei, so a funding of ${approve.gas && approve.maxFeePerGas ? approve.gas * approve.maxFeePerGas : "?"} wei (the funding is at most relay402's cap, maxGas × maxFeePerGasGwei: 100,000 × 5 gwei = 0.0005 ETH by default)`;
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
  if (deps.lastRun && devnetFees) deps.details.push(devnetFees);
}
