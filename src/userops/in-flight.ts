import { entryPointAbi } from "@relay402/client/wire/abis";
import type { RpcUserOp } from "@relay402/client/wire/user-operation";
import type { Address, Hex } from "viem";
import type { Config } from "../config/schema";
import type { IssuedUserOp } from "../db/schema";
import { type Logger, shortReason } from "../logger";
import type { AsyncIssuedUserOpStore } from "./issued-user-op-store";
import {
  findUserOpTransaction,
  lookbackCovers,
  type OutcomeSource,
  outcomeByBundlerHint,
  outcomeInTransaction,
  type UserOpOutcome,
} from "./outcome";
import type { UserOpNetwork } from "./user-op-network";

/** What the chain says of a UserOp left in flight: it executed (this outcome), it never can, or not yet. */
export type InFlightVerdict = UserOpOutcome | "never" | "unknown";

/**
 * How a UserOp flow concludes one of its UserOps the sweep found decided: the answer its settle would have
 * stored (the same `respond`, the same revert count), so that the lookup, the webhooks and a later settle of the
 * same body all give the final result without the client settling again.
 */
export type InFlightFinisher = (record: IssuedUserOp, verdict: UserOpOutcome | "never") => Promise<void>;

/** UserOps looked up per sweep, oldest first; a longer backlog is taken by the following sweeps. */
const LIMIT_PER_SWEEP = 50;

/**
 * What the chain says of an in-flight UserOp. Executed: its UserOperationEvent, found through the bundler's
 * receipt or the EntryPoint's logs. Never: its sender's nonce moved on without it, or its paymaster data expired
 * unused (the EntryPoint refuses it from then on). Anything else, or a chain that cannot be read: unknown.
 */
export async function inFlightVerdict(
  network: UserOpNetwork,
  record: IssuedUserOp,
  nowSeconds: number,
): Promise<InFlightVerdict> {
  const source: OutcomeSource = {
    bundler: network.bundler,
    client: network.runtime.client,
    entryPoint: network.entryPoint,
  };
  const hash = record.userOpHash as Hex;
  try {
    const hinted = await outcomeByBundlerHint(source, hash);
    if (hinted) return hinted;
    const op = JSON.parse(record.userOp) as RpcUserOp;
    const nonce = BigInt(op.nonce);
    const next = await network.runtime.client.readContract({
      address: network.entryPoint,
      abi: entryPointAbi,
      functionName: "getNonce",
      args: [op.sender as Address, nonce >> 64n],
    });
    if (next > nonce) {
      const transaction = await findUserOpTransaction(network.runtime.client, network.entryPoint, hash);
      if (transaction)
        return (await outcomeInTransaction(network.runtime.client, network.entryPoint, hash, transaction)) ?? "unknown";
      const issuedAt = Math.floor(Date.parse(record.createdAt) / 1000);
      return (await lookbackCovers(network.runtime.client, issuedAt)) ? "never" : "unknown";
    }
    // Not executed: it still may be, until its paymaster data expires (a minute's margin for the node's clock).
    return nowSeconds > record.expiresAt + 60 ? "never" : "unknown";
  } catch {
    return "unknown";
  }
}

/**
 * How often the sweep runs: as often as the shortest receipt timeout of the networks, within 1 to 10 seconds (a
 * record is looked up once it is older than its network's timeout, so sooner would find nothing more).
 */
export function inFlightSweepMs(config: Config): number {
  const timeouts = Object.values(config.networks).flatMap((network) => (network ? [network.receiptTimeoutMs] : []));
  return Math.min(10_000, Math.max(1_000, Math.min(...timeouts, 10_000)));
}

/**
 * The UserOp kernel's sweep of UserOps left in flight: a settle that answered 202 leaves its record `sending`, and
 * nobody may settle the same body again. Every `everyMs`, the records sent longer ago than their network's receipt
 * timeout are looked up on the chain, and each one decided is concluded by its flow's finisher (registered by the
 * flow's settler), as its settle would have. One instance's sweep and another's settle may conclude the same
 * record: both write the same final state.
 */
export function createInFlightUserOps(deps: {
  store: AsyncIssuedUserOpStore;
  networks: () => UserOpNetwork[];
  logger: Logger;
  /** Unix seconds. */
  now: () => number;
}) {
  const finishers = new Map<IssuedUserOp["kind"], InFlightFinisher>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<number> | undefined;

  async function sweepOnce(): Promise<number> {
    const networks = new Map<string, UserOpNetwork>(deps.networks().map((network) => [network.runtime.name, network]));
    const timeouts = [...networks.values()].map((network) => network.runtime.config.receiptTimeoutMs);
    if (timeouts.length === 0 || finishers.size === 0) return 0;
    const sentBefore = new Date(Date.now() - Math.min(...timeouts)).toISOString();
    let concluded = 0;
    for (const record of await deps.store.inFlight(sentBefore, LIMIT_PER_SWEEP)) {
      const network = networks.get(record.network);
      const finish = finishers.get(record.kind);
      if (!network || !finish) continue;
      if (record.sentAt && Date.parse(record.sentAt) > Date.now() - network.runtime.config.receiptTimeoutMs) continue;
      const verdict = await inFlightVerdict(network, record, deps.now());
      if (verdict === "unknown") continue;
      try {
        await finish(record, verdict);
        concluded += 1;
      } catch (error) {
        deps.logger.warn({
          event: "userop_in_flight_finish_failed",
          userOpHash: record.userOpHash,
          reason: shortReason(error),
        });
      }
    }
    if (concluded > 0) deps.logger.info({ event: "userops_in_flight_concluded", count: concluded });
    return concluded;
  }

  const sweep = () => {
    running ??= sweepOnce().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    /** A flow's finisher of its kind (one per kind: the flow whose verify issues it). */
    register(kind: IssuedUserOp["kind"], finisher: InFlightFinisher) {
      finishers.set(kind, finisher);
    },
    sweep,
    start(everyMs: number) {
      timer = setInterval(() => {
        sweep().catch((error) =>
          deps.logger.warn({ event: "userop_in_flight_sweep_failed", reason: shortReason(error) }),
        );
      }, everyMs);
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}

export type InFlightUserOps = ReturnType<typeof createInFlightUserOps>;
