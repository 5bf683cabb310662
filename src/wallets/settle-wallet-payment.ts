import type { Address, Hex } from "viem";
import { createSingleFlight } from "../concurrency/single-flight";
import type { DenyCounters } from "../deny/deny-counters";
import { ApiError, type StoredApiError } from "../errors";
import { type Logger, shortReason } from "../logger";
import { type IssuedUserOpStore, issuedAt } from "../userops/issued-user-op-store";
import { assertSignedByOwner, type LocatedUserOp, locateIssuedUserOp } from "../userops/locate-issued-user-op";
import { type UserOpOutcome, waitForUserOpOutcome } from "../userops/outcome";
import { submitUserOp } from "../userops/submit-user-op";
import type { UserOpNetwork } from "../userops/user-op-network";
import type { RpcUserOp } from "../userops/user-operation";
import { assertBalanceStillCovers } from "../userops/wallet-state";
import { type PaymentRecord, transfersIn } from "./transfers";
import type { WalletPaymentContext } from "./verify-wallet-payment";

export type WalletSettleRequest = { userOp: RpcUserOp; signature: Hex };
export type WalletSettleResponse = { success: true; txHash: Hex; userOpHash: Hex; payments: PaymentRecord[] };

export type WalletSettleDeps = {
  networks: () => UserOpNetwork[];
  store: IssuedUserOpStore;
  logger: Logger;
  /** Counts sponsored UserOps that reverted against their wallet's owner. */
  deny: Pick<DenyCounters, "recordRevert">;
  /** Unix seconds. */
  now: () => number;
};

const invalid = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new ApiError("validation_error", message, { field, ...details });

type Located = LocatedUserOp;

/**
 * /wallet/settle: accepts only a UserOp that verify issued, unchanged but for the owner's signature and
 * before its paymaster data expires, and sends it at most once: concurrent settles in this process share
 * one promise, the store's atomic claim covers other processes, and a settled UserOp answers from the store.
 */
export function createWalletPaymentSettler(deps: WalletSettleDeps) {
  const once = createSingleFlight();

  /** The body carries no network: the UserOp's hash (chain id in it) finds the issue. */
  async function checkRequest(request: WalletSettleRequest): Promise<Located> {
    const located = locateIssuedUserOp(
      { store: deps.store, now: deps.now() },
      deps.networks(),
      "payment",
      request.userOp,
      "/wallet/verify",
    );
    if (request.userOp.signature.toLowerCase() !== request.signature.toLowerCase()) {
      throw invalid("signature", "signature differs from userOp.signature");
    }
    await assertSignedByOwner(located, request.signature, deps.now());
    return located;
  }

  function fail(hash: Hex, error: ApiError, txHash: Hex | null = null): never {
    deps.store.finish(hash, { status: "failed", txHash, result: error.toStored() });
    throw error;
  }

  /** `outcome` is read from the chain: the bundler only said which transaction to look at. */
  function finish({ network, hash, record }: Located, outcome: UserOpOutcome): WalletSettleResponse {
    const txHash = outcome.transactionHash;
    if (!outcome.success) {
      deps.deny.recordRevert(network.runtime.name, "owner", record.owner, "sponsored UserOp reverted");
      fail(
        hash,
        new ApiError("blockchain_error", "the UserOp reverted on-chain", {
          txHash,
          userOpHash: hash,
          status: "reverted",
        }),
        txHash,
      );
    }
    const response: WalletSettleResponse = {
      success: true,
      txHash,
      userOpHash: hash,
      payments: transfersIn(outcome.logs, record.sender as Address),
    };
    deps.store.finish(hash, { status: "success", txHash, result: response });
    return response;
  }

  const waitForOutcome = (network: UserOpNetwork, hash: Hex) =>
    waitForUserOpOutcome(
      { bundler: network.bundler, client: network.runtime.client, entryPoint: network.entryPoint },
      hash,
      network.runtime.config.receiptTimeoutMs,
    );

  function assertBalanceCovers({ network, record }: Located): Promise<void> {
    const context = JSON.parse(record.context) as WalletPaymentContext;
    return assertBalanceStillCovers(network.runtime.client, {
      wallet: record.sender as Address,
      token: context.token,
      amount: BigInt(context.totalAmount),
    });
  }

  const pending = (hash: Hex, message: string) =>
    new ApiError("blockchain_error", message, { userOpHash: hash, status: "pending" });

  /** A UserOp some earlier settle sent (maybe in another process, maybe before a restart): wait for its outcome. */
  async function awaitSent(located: Located): Promise<WalletSettleResponse> {
    const { network, hash, record } = located;
    const outcome = await waitForOutcome(network, hash);
    if (outcome) return finish(located, outcome);
    if (record.expiresAt < deps.now()) {
      // Its paymaster data has expired, so it can no longer be included anywhere.
      fail(
        hash,
        new ApiError("blockchain_error", "the UserOp was not mined before it expired; call verify again", {
          userOpHash: hash,
          status: "expired",
        }),
      );
    }
    throw pending(hash, "UserOp sent but not yet mined; retry settle shortly");
  }

  function replay(located: Located): Promise<WalletSettleResponse> | WalletSettleResponse {
    const current = deps.store.find(located.hash) ?? located.record;
    if (current.status === "success") return JSON.parse(current.result ?? "null") as WalletSettleResponse;
    if (current.status === "failed") {
      throw ApiError.fromStored(JSON.parse(current.result ?? "null") as StoredApiError);
    }
    return awaitSent({ ...located, record: current });
  }

  async function send(located: Located, signature: Hex): Promise<WalletSettleResponse> {
    const { network, hash, record } = located;
    // Nothing is claimed or sent for a wallet that no longer holds the total: the paymaster would pay for a revert.
    if (record.status === "issued") await assertBalanceCovers(located);
    if (!deps.store.claim(hash)) return replay(located);
    const op: RpcUserOp = { ...(JSON.parse(record.userOp) as RpcUserOp), signature };
    const submission = await submitUserOp(network, { op, hash }, { resume: false, issuedAt: issuedAt(record) });
    switch (submission.status) {
      case "executed":
        return finish(located, submission.outcome);
      case "pending":
        // The bundler may have it: the claim stays, a later settle looks for the outcome instead of resending.
        throw pending(hash, `${submission.reason}; retry settle shortly`);
      case "rejected":
      case "superseded": {
        // Refused (a nonce another UserOp used is refused too): nothing was paid, and a repeat answers the same.
        const reason = shortReason(submission.error);
        return fail(
          hash,
          new ApiError("userop_error", `bundler rejected the UserOp: ${reason}`, {
            reason,
            rpcCode: submission.error.rpcCode,
            userOpHash: hash,
          }),
        );
      }
      case "unreachable":
        deps.store.release(hash);
        throw new ApiError("blockchain_error", "could not reach the bundler", {
          reason: submission.reason,
          userOpHash: hash,
        });
    }
  }

  return {
    async settle(request: WalletSettleRequest): Promise<WalletSettleResponse> {
      const located = await checkRequest(request);
      return once(located.hash, () => send(located, request.signature));
    },
  };
}

export type WalletPaymentSettler = ReturnType<typeof createWalletPaymentSettler>;
