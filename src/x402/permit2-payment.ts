import type { Eip2612Permit } from "@relay402/client/wire/eip2612-permit";
import {
  type Address,
  decodeFunctionData,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  parseErc6492Signature,
  type TransactionReceipt,
} from "viem";
import type { NetworkRuntime } from "../chain/networks";
import type { TransactionRequest } from "../chain/types";
import type { X402Settlement } from "../db/schema";
import type { ChainJudgement } from "../settlement/authorization-settlement";
import type { PaymentRules } from "../settlement/payment-rules";
import { assetNotAccepted, type Check } from "./check-payment";
import { eip2612ChainRefusal, eip2612FieldRefusal, permitNonce, proxyPermitArgument } from "./eip2612-sponsoring";
import {
  erc20Abi,
  nonceBit,
  nonceWord,
  PERMIT2,
  permit2Abi,
  permit2Domain,
  permit2WitnessTypes,
  X402_EXACT_PERMIT2_PROXY,
  x402ExactPermit2ProxyAbi,
} from "./permit2";
import type { X402Refusal } from "./reasons";
import type { Permit2Transfer, X402Permit2Payment } from "./wire";

const refuse = (refusal: X402Refusal, message: string): Check => ({ ok: false, refusal, message });

/** How far back a foreign execution of a permit is looked for. */
const LOOKBACK_BLOCKS = 10_000n;
/** A chain found without the proxy is asked again after this long (it may be deployed meanwhile). */
const RECHECK_MISSING_MS = 30_000;
/** An unreadable chain is asked again after this long. */
const RECHECK_UNREADABLE_MS = 2_000;

const deployed = new WeakMap<NetworkRuntime, { answer: Promise<boolean>; until: number }>();

/**
 * Whether Permit2 and x402's exact proxy hold code on the network. Code does not go away, so a yes is kept;
 * a no is asked again after a while, an unreadable chain (answered no) sooner. Concurrent callers share one
 * read, so a flood of GET /supported (not rate limited) costs the RPC nothing more.
 */
export function permit2Served(network: NetworkRuntime): Promise<boolean> {
  const known = deployed.get(network);
  if (known && Date.now() < known.until) return known.answer;
  const entry = { answer: Promise.resolve(false), until: Number.POSITIVE_INFINITY };
  entry.answer = Promise.all([
    network.client.getCode({ address: PERMIT2 }),
    network.client.getCode({ address: X402_EXACT_PERMIT2_PROXY }),
  ]).then(
    ([permit2, proxy]) => {
      const ok = !!permit2 && permit2 !== "0x" && !!proxy && proxy !== "0x";
      if (!ok) entry.until = Date.now() + RECHECK_MISSING_MS;
      return ok;
    },
    () => {
      entry.until = Date.now() + RECHECK_UNREADABLE_MS;
      return false;
    },
  );
  deployed.set(network, entry);
  return entry.answer;
}

/**
 * The checks of @x402/evm's Permit2 verify, in its order and with its codes, and relay402's own rules among
 * them (the token served, the deadline margin, zero and minimum amounts, denied payers); then the chain:
 * the proxy deployed, Permit2's nonce unused, the payer's balance and its allowance to Permit2.
 */
export async function checkPermit2Payment(
  network: NetworkRuntime,
  rules: PaymentRules,
  payment: X402Permit2Payment,
  now: bigint,
): Promise<Check> {
  const { permit, requirements } = payment;
  if (!network.token(requirements.asset))
    return refuse("assetNotAccepted", assetNotAccepted(network, requirements.asset));
  if (!isAddressEqual(permit.spender, X402_EXACT_PERMIT2_PROXY))
    return refuse("permit2Spender", `the permit's spender must be x402's exact proxy ${X402_EXACT_PERMIT2_PROXY}`);
  if (!isAddressEqual(permit.to, requirements.payTo)) return refuse("permit2Recipient", "witness.to is not payTo");
  const margin = BigInt(rules.validBeforeMarginSeconds);
  if (permit.deadline < now + margin)
    return refuse("permit2Deadline", `the deadline must be at least ${margin} s after now`);
  if (permit.validAfter > now) return refuse("permit2NotYetValid", "witness.validAfter is in the future");
  if (permit.amount !== requirements.amount)
    return refuse("permit2AmountMismatch", "permitted.amount is not the required amount");
  if (!isAddressEqual(permit.token, requirements.asset))
    return refuse("permit2TokenMismatch", "permitted.token is not the required asset");

  let signatureValid: boolean;
  try {
    signatureValid = await network.client.verifyTypedData({
      address: permit.from,
      domain: permit2Domain(network.config.chainId),
      types: permit2WitnessTypes,
      primaryType: "PermitWitnessTransferFrom",
      message: {
        permitted: { token: permit.token, amount: permit.amount },
        spender: permit.spender,
        nonce: permit.nonce,
        deadline: permit.deadline,
        witness: { to: permit.to, validAfter: permit.validAfter },
      },
      signature: permit.signature,
    });
  } catch {
    signatureValid = false;
  }
  if (!signatureValid) return refuse("permit2Signature", "the signature does not recover to permit2Authorization.from");

  if (permit.amount === 0n) return refuse("permit2InvalidAmount", "the amount must be above zero");
  const minimum = rules.minPaymentValue(requirements.asset);
  if (permit.amount < minimum)
    return refuse("permit2InvalidAmount", `the amount must be at least ${minimum} (the token's minimum payment)`);
  if (await rules.isPayerDenied(permit.from))
    return refuse("payerDenied", "this payer is refused after repeated on-chain reverts");
  const sponsoring = payment.eip2612;
  const sponsoringRefusal = sponsoring && eip2612FieldRefusal(network, rules, sponsoring, permit, now);
  if (sponsoringRefusal) return sponsoringRefusal;

  if (!(await permit2Served(network)))
    return refuse("permit2ProxyMissing", `Permit2 or x402's exact proxy has no code on ${network.name}`);
  try {
    const token = { address: permit.token, abi: erc20Abi } as const;
    const [bitmap, balance, allowance, nextPermitNonce] = await Promise.all([
      network.client.readContract({
        address: PERMIT2,
        abi: permit2Abi,
        functionName: "nonceBitmap",
        args: [permit.from, nonceWord(permit.nonce)],
      }),
      network.client.readContract({ ...token, functionName: "balanceOf", args: [permit.from] }),
      network.client.readContract({ ...token, functionName: "allowance", args: [permit.from, PERMIT2] }),
      sponsoring ? permitNonce(network, sponsoring) : null,
    ]);
    if ((bitmap & nonceBit(permit.nonce)) !== 0n)
      return refuse("permit2Nonce", "this Permit2 nonce of the payer is already used or invalidated");
    if (balance < permit.amount) return refuse("permit2Balance", "the payer's balance is below the amount");
    if (allowance >= permit.amount) return { ok: true };
    if (!sponsoring || nextPermitNonce === null)
      return refuse("permit2Allowance", `the payer must approve Permit2 (${PERMIT2}) for the token first`);
    // The allowance is short: the payer's EIP-2612 permit must grant it, in the settlement's own transaction.
    return (await eip2612ChainRefusal(network, sponsoring, nextPermitNonce)) ?? { ok: true, permitNeeded: true };
  } catch {
    return refuse("unexpectedVerify", "could not read Permit2's or the token's state");
  }
}

const settleArgs = (permit: Permit2Transfer) =>
  [
    { permitted: { token: permit.token, amount: permit.amount }, nonce: permit.nonce, deadline: permit.deadline },
    permit.from,
    { to: permit.to, validAfter: permit.validAfter },
    // Permit2 checks EOA and ERC-1271 signatures; an ERC-6492 wrapper is for off-chain verification only.
    parseErc6492Signature(permit.signature).signature,
  ] as const;

/**
 * The proxy's settle of this permit, sent by our executors; with the payer's EIP-2612 permit (only when its
 * allowance to Permit2 is short), `settleWithPermit`, which submits the permit first in the same transaction.
 */
export const permit2SettleRequest = (
  network: NetworkRuntime,
  permit: Permit2Transfer,
  eip2612?: Eip2612Permit,
): TransactionRequest => ({
  to: X402_EXACT_PERMIT2_PROXY,
  data: eip2612
    ? encodeFunctionData({
        abi: x402ExactPermit2ProxyAbi,
        functionName: "settleWithPermit",
        args: [proxyPermitArgument(eip2612), ...settleArgs(permit)],
      })
    : encodeFunctionData({ abi: x402ExactPermit2ProxyAbi, functionName: "settle", args: settleArgs(permit) }),
  gas: BigInt(network.config.settleGasLimit),
});

/** Whether the record's Permit2 nonce is used (by this permit, another one, or an invalidation). */
export async function permit2NonceUsed(network: NetworkRuntime, record: X402Settlement): Promise<boolean> {
  const nonce = BigInt(record.nonce);
  const bitmap = await network.client.readContract({
    address: PERMIT2,
    abi: permit2Abi,
    functionName: "nonceBitmap",
    args: [record.payer as Address, nonceWord(nonce)],
  });
  return (bitmap & nonceBit(nonce)) !== 0n;
}

/** Whether a transaction called the proxy with exactly this record's permit (owner, nonce, token, amount, recipient). */
function executesRecord(input: Hex, record: X402Settlement): boolean {
  let decoded: ReturnType<typeof decodeFunctionData<typeof x402ExactPermit2ProxyAbi>>;
  try {
    decoded = decodeFunctionData({ abi: x402ExactPermit2ProxyAbi, data: input });
  } catch {
    return false;
  }
  const call =
    decoded.functionName === "settle"
      ? { permit: decoded.args[0], owner: decoded.args[1], witness: decoded.args[2] }
      : decoded.functionName === "settleWithPermit"
        ? { permit: decoded.args[1], owner: decoded.args[2], witness: decoded.args[3] }
        : null;
  return (
    call !== null &&
    isAddressEqual(call.owner, record.payer as Address) &&
    call.permit.nonce === BigInt(record.nonce) &&
    isAddressEqual(call.permit.permitted.token, (record.token ?? "") as Address) &&
    call.permit.permitted.amount === BigInt(record.amount) &&
    isAddressEqual(call.witness.to, record.recipient as Address)
  );
}

/** A call frame of `debug_traceTransaction`'s callTracer. */
type CallFrame = { type?: string; to?: string; input?: Hex; error?: string; calls?: CallFrame[] };

/** Whether a successful frame of the trace (no failed ancestor) is a call of the proxy that executes the record. */
function tracedExecution(frame: CallFrame, record: X402Settlement): boolean {
  if (frame.error) return false;
  const callsProxy =
    frame.type === "CALL" && !!frame.to && isAddressEqual(frame.to as Address, X402_EXACT_PERMIT2_PROXY);
  if (callsProxy && frame.input && executesRecord(frame.input, record)) return true;
  return (frame.calls ?? []).some((call) => tracedExecution(call, record));
}

/**
 * Whether a transaction executed the record's permit: its own call of the proxy, or, sent to another contract
 * (a multicall, another facilitator's batcher), a successful inner call found in its trace. A node without
 * `debug_traceTransaction` leaves the latter unrecognised.
 */
async function executedBy(network: NetworkRuntime, hash: Hex, record: X402Settlement): Promise<boolean> {
  const transaction = await network.client.getTransaction({ hash });
  if (transaction.to && isAddressEqual(transaction.to, X402_EXACT_PERMIT2_PROXY))
    return executesRecord(transaction.input, record);
  let trace: CallFrame;
  try {
    trace = (await network.client.request({
      method: "debug_traceTransaction",
      params: [hash, { tracer: "callTracer" }],
    } as never)) as CallFrame;
  } catch {
    return false;
  }
  return tracedExecution(trace, record);
}

/**
 * What the chain says of a permit our own transaction did not execute. Anyone may submit the signed permit to
 * the proxy: a transaction counts only if it emitted Transfer(payer, recipient, amount) on the token and
 * executed the proxy's settle of this very permit (Permit2 logs no nonce, so the call itself says which permit
 * it spent). Otherwise the payment is not claimed, whoever was paid.
 */
export async function judgePermit2(
  network: NetworkRuntime,
  record: X402Settlement,
  reverted: TransactionReceipt | null,
): Promise<ChainJudgement> {
  if (!(await permit2NonceUsed(network, record))) return {};
  const token = (record.token ?? "") as Address;
  const toBlock = reverted?.blockNumber ?? (await network.client.getBlockNumber());
  const transfers = await network.client.getContractEvents({
    address: token,
    abi: erc20Abi,
    eventName: "Transfer",
    args: { from: record.payer as Address, to: record.recipient as Address },
    fromBlock: toBlock > LOOKBACK_BLOCKS ? toBlock - LOOKBACK_BLOCKS : 0n,
    toBlock,
  });
  for (const transfer of transfers.reverse()) {
    if (transfer.args.value !== BigInt(record.amount)) continue;
    if (await executedBy(network, transfer.transactionHash, record))
      return { paid: { transactionHash: transfer.transactionHash, blockNumber: transfer.blockNumber } };
  }
  return { usedBy: "Permit2's nonce was used without this transfer (another permit, or invalidated)" };
}
