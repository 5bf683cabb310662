import type { RpcUserOp } from "@relay402/client/wire/user-operation";
import type { Hex } from "viem";
import { createSingleFlight } from "../concurrency/single-flight";
import type { IssuedUserOp } from "../db/schema";
import { ApiError, type StoredApiError, withPaymentId } from "../errors";
import type { InFlightUserOps } from "./in-flight";
import { refuse } from "./invalid";
import { assertSignedByOwner, type LocatedUserOp, locateIssuedUserOp } from "./locate-issued-user-op";
import { type UserOpOutcome, userOpFigures } from "./outcome";
import type { SimulatedRevertError } from "./simulate";
import { type RevertCount, recordFailure, recordReverted, type SubmitDeps, sendIssuedUserOp } from "./submit-user-op";
import type { UserOpNetwork } from "./user-op-network";

export type UserOpSettleRequest = { userOp: RpcUserOp; signature: Hex };

/** The issued UserOp being settled, with the context its flow gave issueUserOp at verify. */
export type SettlingUserOp<Context> = LocatedUserOp & { context: Context };

/** What a UserOp flow whose settle takes just the signed UserOp (`/wallet/settle` and the like) supplies. */
export type SettleFlow<Response, Context> = {
  kind: IssuedUserOp["kind"];
  /** The endpoint that issues this kind, named in refusals. */
  issuedBy: string;
  /**
   * Before the first send, what must still hold on-chain so that the paymaster never pays for a revert, checked
   * before the kernel's own simulation so that the flow names the field.
   */
  beforeSend?: (settling: SettlingUserOp<Context>) => Promise<void>;
  /** The flow's answer to calls whose simulation just before the send reverts; default revertRefusal. */
  refuseRevert?: (revert: SimulatedRevertError, settling: SettlingUserOp<Context>) => ApiError;
  /**
   * The answer to a UserOp that executed successfully, read from its own logs; stored and replayed, with the
   * kernel's `paymentId` (the userOpHash).
   */
  respond: (settling: SettlingUserOp<Context>, outcome: UserOpOutcome) => Omit<Response, "paymentId">;
  /** Which count a reverted UserOp of this flow goes to (the owner's all-flows count unless told otherwise). */
  countRevert?: (settling: SettlingUserOp<Context>) => RevertCount;
};

export type SettleDeps = SubmitDeps & {
  networks: () => UserOpNetwork[];
  /** Unix seconds. */
  now: () => number;
  /** The kernel's sweep of UserOps left in flight (in-flight.ts): the settler registers how its kind concludes. */
  inFlight?: Pick<InFlightUserOps, "register">;
};

/** The error of a UserOp that executed and reverted, as every flow settled through this kernel answers it. */
const reverted = (userOpHash: Hex) => (txHash: Hex) =>
  new ApiError("blockchain_error", "the UserOp reverted on-chain", { txHash, userOpHash, status: "reverted" });

/**
 * Settle of a signed UserOp: accepts only one that verify issued, unchanged but for the owner's signature and
 * before its paymaster data expires, and sends it through the kernel. Concurrent settles in this process share
 * one promise; a settled UserOp answers from the store. The body carries no network: the UserOp's hash (chain
 * id in it) finds the issue.
 */
export function createUserOpSettler<Response extends { paymentId: string }, Context>(
  deps: SettleDeps,
  flow: SettleFlow<Response, Context>,
) {
  const once = createSingleFlight();

  async function send(located: LocatedUserOp, signature: Hex): Promise<Response> {
    try {
      return await sendOnce(located, signature);
    } catch (error) {
      throw withPaymentId(error, located.hash);
    }
  }

  async function sendOnce(located: LocatedUserOp, signature: Hex): Promise<Response> {
    const record = (await deps.store.find(located.hash)) ?? located.record;
    if (record.status === "success") return { ...JSON.parse(record.result ?? "null"), paymentId: located.hash };
    if (record.status === "failed") throw ApiError.fromStored(JSON.parse(record.result ?? "null") as StoredApiError);
    const current = { ...located, record, context: JSON.parse(record.context) as Context };
    const { refuseRevert } = flow;
    if (record.status === "issued") await flow.beforeSend?.(current);
    const outcome = await sendIssuedUserOp(
      deps,
      current,
      signature,
      reverted(located.hash),
      flow.countRevert?.(current),
      refuseRevert && ((revert) => refuseRevert(revert, current)),
    );
    return succeeded(current, outcome);
  }

  /** The answer to a UserOp that executed successfully, stored so that a repeat (or the lookup) gives it. */
  async function succeeded(current: SettlingUserOp<Context>, outcome: UserOpOutcome): Promise<Response> {
    const response = { ...flow.respond(current, outcome), paymentId: current.hash } as Response;
    await deps.store.finish(current.hash, {
      status: "success",
      txHash: outcome.transactionHash,
      result: response,
      mined: userOpFigures(outcome),
    });
    return response;
  }

  // A UserOp of this kind the sweep found decided after its settle answered 202: concluded as its settle would have.
  deps.inFlight?.register(flow.kind, async (record, verdict) => {
    const network = deps.networks().find((each) => each.runtime.name === record.network);
    // Concluded meanwhile (a settle of the same body, another instance's sweep): counted and stored once already.
    if (!network || (await deps.store.find(record.userOpHash))?.status !== "sending") return;
    const current = { network, hash: record.userOpHash as Hex, record, context: JSON.parse(record.context) as Context };
    if (verdict === "never") {
      const error = new ApiError("userop_error", "the UserOp was never executed: nothing was paid; call verify again", {
        userOpHash: current.hash,
      });
      return recordFailure(deps, current.hash, error);
    }
    if (!verdict.success) {
      await recordReverted(deps, current, verdict, reverted(current.hash), flow.countRevert?.(current));
      return;
    }
    await succeeded(current, verdict);
  });

  return async function settle(request: UserOpSettleRequest): Promise<Response> {
    const now = deps.now();
    const located = await locateIssuedUserOp(
      { store: deps.store, now },
      deps.networks(),
      flow.kind,
      request.userOp,
      flow.issuedBy,
    );
    if (request.userOp.signature.toLowerCase() !== request.signature.toLowerCase()) {
      throw refuse("signature", "signature differs from userOp.signature");
    }
    await assertSignedByOwner(located, request.signature, now);
    return once(located.hash, () => send(located, request.signature));
  };
}
