import {
  type Address,
  decodeEventLog,
  type Hex,
  isAddressEqual,
  type PublicClient,
  parseAbiItem,
  toEventSelector,
} from "viem";
import { type MinedFigures, minedFigures } from "../chain/mined-figures";
import type { Bundler } from "./bundler";

const userOperationEvent = parseAbiItem(
  "event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)",
);
const USER_OPERATION_EVENT = toEventSelector(userOperationEvent);
const userOperationRevertReason = parseAbiItem(
  "event UserOperationRevertReason(bytes32 indexed userOpHash, address indexed sender, uint256 nonce, bytes revertReason)",
);
const USER_OPERATION_REVERT_REASON = toEventSelector(userOperationRevertReason);
/** EntryPoint v0.7 emits it once per bundle, between validation and the first execution. */
const BEFORE_EXECUTION = toEventSelector("event BeforeExecution()");

export type ChainLog = { address: Address; topics: Hex[]; data: Hex };

/** A UserOp's execution as the chain recorded it. */
export type UserOpOutcome = {
  success: boolean;
  transactionHash: Hex;
  blockNumber: bigint;
  /** The logs emitted while this UserOp executed (after the previous UserOp's event, up to its own). */
  logs: ChainLog[];
  /** From its UserOperationEvent: what the paymaster paid (wei) for the gas this UserOp used. */
  actualGasCost: bigint;
  actualGasUsed: bigint;
  /** The bundle transaction's receipt (the whole bundle's gas, and its price); absent from a receipt without them. */
  gasUsed?: bigint;
  effectiveGasPrice?: bigint | null;
};

type Receipt = {
  transactionHash: Hex;
  blockNumber: bigint;
  logs: readonly ChainLog[];
  gasUsed?: bigint;
  effectiveGasPrice?: bigint | null;
};

/** The EntryPoint's UserOperationEvent for `userOpHash` in `receipt` and the logs of that UserOp; null when absent. */
export function outcomeInReceipt(receipt: Receipt, entryPoint: Address, userOpHash: Hex): UserOpOutcome | null {
  const fromEntryPoint = (log: ChainLog, topic: Hex) =>
    isAddressEqual(log.address, entryPoint) && log.topics[0]?.toLowerCase() === topic;
  const { logs } = receipt;
  const index = logs.findIndex(
    (log) => fromEntryPoint(log, USER_OPERATION_EVENT) && log.topics[1]?.toLowerCase() === userOpHash.toLowerCase(),
  );
  if (index < 0) return null;
  let start = index;
  while (start > 0) {
    const previous = logs[start - 1] as ChainLog;
    if (fromEntryPoint(previous, USER_OPERATION_EVENT) || fromEntryPoint(previous, BEFORE_EXECUTION)) break;
    start--;
  }
  const event = logs[index] as ChainLog;
  const { args } = decodeEventLog({
    abi: [userOperationEvent],
    topics: event.topics as [Hex, ...Hex[]],
    data: event.data,
  });
  return {
    success: args.success,
    transactionHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    logs: logs.slice(start, index),
    actualGasCost: args.actualGasCost,
    actualGasUsed: args.actualGasUsed,
    gasUsed: receipt.gasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
  };
}

/** What an executed UserOp's record keeps of it (issued_user_ops): the bundle's receipt and the paymaster's cost. */
export type UserOpFigures = MinedFigures & { actualGasCost: string; actualGasUsed: string; blockNumber: number };

export function userOpFigures(outcome: UserOpOutcome): UserOpFigures {
  const receipt =
    outcome.gasUsed === undefined
      ? { gasUsed: null, effectiveGasPrice: null, minedAt: new Date().toISOString() }
      : minedFigures({ gasUsed: outcome.gasUsed, effectiveGasPrice: outcome.effectiveGasPrice });
  return {
    ...receipt,
    actualGasCost: outcome.actualGasCost.toString(),
    actualGasUsed: outcome.actualGasUsed.toString(),
    blockNumber: Number(outcome.blockNumber),
  };
}

/** The UserOp's outcome in transaction `transactionHash` read from the chain; null when it is not there (yet). */
export async function outcomeInTransaction(
  client: PublicClient,
  entryPoint: Address,
  userOpHash: Hex,
  transactionHash: Hex,
): Promise<UserOpOutcome | null> {
  const receipt = await client.getTransactionReceipt({ hash: transactionHash }).catch(() => null);
  return receipt ? outcomeInReceipt(receipt, entryPoint, userOpHash) : null;
}

/** How far back (in blocks) a UserOp is looked for on the chain, in windows of LOG_WINDOW blocks. */
const USEROP_LOOKBACK_BLOCKS = 50_000n;
const LOG_WINDOW = 5_000n;

/**
 * The transaction that executed `userOpHash`, found from its UserOperationEvent in recent blocks; null when
 * it is not there. Throws when the chain cannot be read.
 */
export async function findUserOpTransaction(client: PublicClient, entryPoint: Address, userOpHash: Hex) {
  const latest = await client.getBlockNumber();
  const oldest = latest > USEROP_LOOKBACK_BLOCKS ? latest - USEROP_LOOKBACK_BLOCKS : 0n;
  for (let to = latest; to >= oldest; to -= LOG_WINDOW) {
    const from = to - LOG_WINDOW + 1n > oldest ? to - LOG_WINDOW + 1n : oldest;
    const [event] = await client.getLogs({
      address: entryPoint,
      event: userOperationEvent,
      args: { userOpHash },
      fromBlock: from,
      toBlock: to,
    });
    if (event?.transactionHash) return event.transactionHash;
    if (from === oldest) break;
  }
  return null;
}

/**
 * Whether findUserOpTransaction's window reaches back to `sinceSeconds` (unix): only then does "not found" mean
 * the UserOp never executed after that time.
 */
export async function lookbackCovers(client: PublicClient, sinceSeconds: number): Promise<boolean> {
  const latest = await client.getBlockNumber();
  if (latest <= USEROP_LOOKBACK_BLOCKS) return true;
  const oldest = await client.getBlock({ blockNumber: latest - USEROP_LOOKBACK_BLOCKS });
  return Number(oldest.timestamp) <= sinceSeconds;
}

export type OutcomeSource = { bundler: Bundler; client: PublicClient; entryPoint: Address };

/** The outcome in the transaction the bundler's receipt names, read from the chain; null when there is none. */
export async function outcomeByBundlerHint(source: OutcomeSource, userOpHash: Hex): Promise<UserOpOutcome | null> {
  const hint = await source.bundler.receipt(userOpHash).catch(() => null);
  if (!hint) return null;
  return outcomeInTransaction(source.client, source.entryPoint, userOpHash, hint.receipt.transactionHash);
}

/**
 * Waits for a sent UserOp's outcome, read from the chain. The bundler's receipt only says which transaction
 * to read: a receipt naming a transaction without this UserOp's event is ignored. The bundler is asked at once,
 * then whenever the chain has a new block (read every `intervalMs`, a cheap eth_blockNumber), so the receipt is
 * taken within `intervalMs` of its block rather than after a fixed sleep; and at least every `staleMs` even
 * without a new block, since a bundler behind a lagging node may see a block later than our node. When the
 * bundler names none in time, recent blocks are searched for the event; null when the UserOp is not found on
 * the chain.
 */
export async function waitForUserOpOutcome(
  source: OutcomeSource,
  userOpHash: Hex,
  timeoutMs: number,
  intervalMs = 50,
  staleMs = 1_000,
): Promise<UserOpOutcome | null> {
  const deadline = Date.now() + timeoutMs;
  // Straight eth_blockNumber: viem's getBlockNumber would answer from its cache for the client's polling interval.
  const blockNumber = () =>
    source.client
      .request({ method: "eth_blockNumber" })
      .then(BigInt)
      .catch(() => undefined);
  let askedAtBlock = await blockNumber();
  let askedAt = Date.now();
  while (Date.now() < deadline) {
    const outcome = await outcomeByBundlerHint(source, userOpHash);
    if (outcome) return outcome;
    for (;;) {
      await Bun.sleep(intervalMs);
      if (Date.now() >= deadline) break;
      const block = await blockNumber();
      // An unreadable chain says nothing about the bundler: ask it as if a block had come.
      const newBlock = block === undefined || askedAtBlock === undefined || block > askedAtBlock;
      if (newBlock || Date.now() - askedAt >= staleMs) {
        askedAtBlock = block ?? askedAtBlock;
        askedAt = Date.now();
        break;
      }
    }
  }
  const found = await findUserOpTransaction(source.client, source.entryPoint, userOpHash).catch(() => null);
  return found ? outcomeInTransaction(source.client, source.entryPoint, userOpHash, found) : null;
}

/**
 * The revert data of a reverted UserOp's execution (the EntryPoint's UserOperationRevertReason among its own logs,
 * cut at 2048 bytes by the EntryPoint); undefined when the execution reverted without data.
 */
export function revertReasonIn(outcome: UserOpOutcome, entryPoint: Address): Hex | undefined {
  const log = outcome.logs.find(
    (candidate) =>
      isAddressEqual(candidate.address, entryPoint) &&
      candidate.topics[0]?.toLowerCase() === USER_OPERATION_REVERT_REASON,
  );
  if (!log) return undefined;
  const { args } = decodeEventLog({
    abi: [userOperationRevertReason],
    topics: log.topics as [Hex, ...Hex[]],
    data: log.data,
  });
  return args.revertReason;
}
