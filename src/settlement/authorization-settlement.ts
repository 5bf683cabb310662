import type { Hex, TransactionReceipt } from "viem";
import { resumeSend, type SendOutcome, sendDurably, simulateSend } from "../chain/durable-send";
import { minedFigures } from "../chain/mined-figures";
import type { NetworkRuntime } from "../chain/networks";
import type { TransactionRequest } from "../chain/types";
import type { Logger } from "../logger";
import type { SettlementOutcome } from "./settlement-journal";

/**
 * The one state machine of a signed authorization settled by our executors (the relayer's EOA authorizations,
 * x402's EIP-3009 ones): the durable sender's outcome, or a stored record, becomes a verdict, and the record
 * is written on the way. Each flow supplies how the chain tells whether the authorization was paid, and turns
 * the verdict into its own answer.
 */

/** What both flows keep of a settlement. */
export type SettlementRecord = {
  id: number;
  payer: string;
  status: "pending" | "sent" | "success" | "reverted" | "failed" | "rejected";
  txHash: string | null;
  rawTx: string | null;
  blockNumber: number | null;
  error: string | null;
};

/**
 * The part of a settlement store the machine writes, as an async port (src/db/async-port.ts): the SQLite stores
 * through `asAsync`, the PostgreSQL ones as they are. Every call is awaited, so an outcome is stored before the
 * verdict it belongs to is answered, on either database.
 */
export type SettlementRecordStore = {
  /** The journal write before the broadcast, durable when it answers (SQLite: committed with others of the same moment, groupCommit). */
  journalSent(id: number, txHash: string, rawTx: string): Promise<void>;
  markReplaced(id: number, txHash: string): Promise<void>;
  markOutcome(id: number, outcome: SettlementOutcome): Promise<void>;
  /** Drops a record whose transaction was never signed, so the authorization can be settled again. */
  release(id: number): Promise<void>;
};

/** What the chain says of an authorization our own transaction did not execute. */
export type ChainJudgement = {
  /** The transaction that paid exactly this authorization (anyone may submit it). */
  paid?: { transactionHash: Hex; blockNumber: bigint };
  /** Why the nonce is gone without paying it (another authorization, a cancellation). */
  usedBy?: string;
};

export type AuthorizationChain<R> = {
  /** `reverted` is our mined, reverted receipt; null when our transaction was never mined. Throws if unreadable. */
  judge(network: NetworkRuntime, record: R, reverted: TransactionReceipt | null): Promise<ChainJudgement>;
  nonceUsed(network: NetworkRuntime, record: R): Promise<boolean>;
};

export type SettlementVerdict =
  | { kind: "settled"; txHash: string; blockNumber: number }
  | { kind: "reverted"; txHash: string }
  | { kind: "rejected"; reason: string }
  /** Never mined and the nonce is free: the authorization may be settled again. */
  | { kind: "dropped" }
  | { kind: "would_revert"; reason: string; revertData?: Hex }
  | { kind: "not_sent"; reason: string }
  | { kind: "refused"; reason: string }
  /** Not known yet: sent and unmined, the chain unreadable, or another request settling it right now. */
  | { kind: "pending"; why: "unconfirmed" | "unreadable" | "in_progress"; hash: string | null; message: string };

/** A transaction that was not sent, as a verdict: a simulated revert keeps the node's revert data for the flow. */
const unsentVerdict = (outcome: Extract<SendOutcome, { status: "would_revert" | "not_sent" }>): SettlementVerdict =>
  outcome.status === "would_revert"
    ? { kind: "would_revert", reason: outcome.reason, revertData: outcome.revertData }
    : { kind: "not_sent", reason: outcome.reason };

export function createAuthorizationSettlement<R extends SettlementRecord>(deps: {
  store: SettlementRecordStore;
  chain: AuthorizationChain<R>;
  logger: Logger;
  /** Prefix of this flow's log events. */
  event: string;
  /**
   * Told of every settlement that reverted on-chain through the payer's doing (not a foreign execution); awaited
   * (the deny counters are in the database), after the record is marked reverted. `reverted` is the receipt, for
   * a flow that tells the payer's reverts from the market's.
   */
  onPayerRevert?(network: NetworkRuntime, payer: string, reverted: TransactionReceipt): Promise<void> | void;
}) {
  /** `ours`: the receipt of our own transaction that paid (its cost goes with the record); absent for a foreign one. */
  const settled = async (
    record: R,
    txHash: string,
    blockNumber: number,
    ours?: TransactionReceipt,
  ): Promise<SettlementVerdict> => {
    await deps.store.markOutcome(record.id, {
      status: "success",
      txHash,
      blockNumber,
      ...(ours && { mined: minedFigures(ours) }),
    });
    return { kind: "settled", txHash, blockNumber };
  };

  /** Our transaction did not pay: only the chain can tell what happened. */
  async function fromChain(
    network: NetworkRuntime,
    record: R,
    reverted: TransactionReceipt | null,
  ): Promise<SettlementVerdict> {
    let judged: ChainJudgement;
    try {
      judged = await deps.chain.judge(network, record, reverted);
    } catch {
      return {
        kind: "pending",
        why: "unreadable",
        hash: reverted?.transactionHash ?? record.txHash,
        message: "could not read the settlement's outcome",
      };
    }
    if (judged.paid) return settled(record, judged.paid.transactionHash, Number(judged.paid.blockNumber));
    if (judged.usedBy) {
      // Our transaction, when mined and reverted, cost the executor its gas: the record names its block and cost,
      // as the chain shows them.
      await deps.store.markOutcome(record.id, {
        status: "rejected",
        error: judged.usedBy,
        ...(reverted && {
          txHash: reverted.transactionHash,
          blockNumber: Number(reverted.blockNumber),
          mined: minedFigures(reverted),
        }),
      });
      return { kind: "rejected", reason: judged.usedBy };
    }
    if (!reverted) {
      await deps.store.markOutcome(record.id, { status: "failed", error: "transaction dropped" });
      return { kind: "dropped" };
    }
    await deps.store.markOutcome(record.id, {
      status: "reverted",
      txHash: reverted.transactionHash,
      blockNumber: Number(reverted.blockNumber),
      error: "reverted",
      mined: minedFigures(reverted),
    });
    await deps.onPayerRevert?.(network, record.payer, reverted);
    return { kind: "reverted", txHash: reverted.transactionHash };
  }

  async function conclude(network: NetworkRuntime, record: R, outcome: SendOutcome): Promise<SettlementVerdict> {
    switch (outcome.status) {
      case "mined": {
        const { receipt } = outcome;
        if (receipt.status !== "success") return fromChain(network, record, receipt);
        return settled(record, receipt.transactionHash, Number(receipt.blockNumber), receipt);
      }
      case "superseded":
        return fromChain(network, record, null);
      case "would_revert":
      case "not_sent":
        await deps.store.release(record.id);
        return unsentVerdict(outcome);
      case "refused":
        // The node refused it, so it can never be mined: the authorization may be settled again.
        await deps.store.markOutcome(record.id, { status: "failed", error: outcome.reason });
        return { kind: "refused", reason: outcome.reason };
      case "unconfirmed":
        deps.logger.warn({
          event: `${deps.event}_unconfirmed`,
          network: network.name,
          transaction: outcome.hash,
          reason: outcome.reason,
        });
        return {
          kind: "pending",
          why: "unconfirmed",
          hash: outcome.hash,
          message: "settlement transaction sent but not yet mined",
        };
    }
  }

  /** A record left sent (a timeout, a crash): the transaction is resumed. */
  const resume = async (network: NetworkRuntime, record: R) =>
    conclude(network, record, await resumeSend(network, record, network.config.receiptTimeoutMs));

  return {
    /**
     * The send's simulation alone, before any record is claimed (no store write): null when the transaction would
     * go through, else the verdict. A flow that starts it in the same tick as its own chain reads gets both in one
     * round trip, then calls `send` with `simulated`.
     */
    async simulate(network: NetworkRuntime, request: TransactionRequest): Promise<SettlementVerdict | null> {
      const outcome = await simulateSend(network, request);
      return outcome && unsentVerdict(outcome);
    },

    /** Sends the record's transaction (simulated first, unless `simulated` says `simulate` just passed) and concludes. */
    async send(
      network: NetworkRuntime,
      record: R,
      request: TransactionRequest,
      options: { simulated?: boolean } = {},
    ): Promise<SettlementVerdict> {
      const outcome = await sendDurably(
        network,
        request,
        {
          signed: (hash, raw) => deps.store.journalSent(record.id, hash, raw),
          replaced: (hash) => deps.store.markReplaced(record.id, hash),
        },
        { simulate: !options.simulated },
      );
      return conclude(network, record, outcome);
    },

    /** What a known record answers: its stored outcome, or the resumed transaction's. */
    replay(network: NetworkRuntime, record: R): Promise<SettlementVerdict> | SettlementVerdict {
      switch (record.status) {
        case "success":
          return { kind: "settled", txHash: record.txHash ?? "", blockNumber: record.blockNumber ?? 0 };
        case "reverted":
          return { kind: "reverted", txHash: record.txHash ?? "" };
        case "rejected":
          return { kind: "rejected", reason: record.error ?? "nonce used by a different authorization" };
        case "failed":
          return { kind: "dropped" };
        case "sent":
          return resume(network, record);
        case "pending":
          return {
            kind: "pending",
            why: "in_progress",
            hash: null,
            message: "this authorization is being settled; retry shortly",
          };
      }
    },

    /**
     * After a restart: a record never signed is released while its nonce is unused (null), else the chain
     * decides; one sent is resumed.
     */
    async reconcile(network: NetworkRuntime, record: R): Promise<SettlementVerdict | null> {
      if (record.status === "sent") return resume(network, record);
      if (!(await deps.chain.nonceUsed(network, record))) {
        await deps.store.release(record.id);
        return null;
      }
      return fromChain(network, record, null);
    },
  };
}
