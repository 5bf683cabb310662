import type { Address, Hex } from "viem";
import { createSingleFlight } from "../concurrency/single-flight";
import type { DenyCounters } from "../deny/deny-counters";
import { ApiError, type StoredApiError } from "../errors";
import type { Logger } from "../logger";
import type { IssuedUserOpStore } from "../userops/issued-user-op-store";
import { assertSignedByOwner, type LocatedUserOp, locateIssuedUserOp } from "../userops/locate-issued-user-op";
import { sendIssuedUserOp } from "../userops/submit-user-op";
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

/**
 * /wallet/settle: accepts only a UserOp that verify issued, unchanged but for the owner's signature and
 * before its paymaster data expires, and sends it through the kernel: concurrent settles in this process share
 * one promise, and a settled UserOp answers from the store.
 */
export function createWalletPaymentSettler(deps: WalletSettleDeps) {
  const once = createSingleFlight();

  /** The body carries no network: the UserOp's hash (chain id in it) finds the issue. */
  async function checkRequest(request: WalletSettleRequest): Promise<LocatedUserOp> {
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

  function assertBalanceCovers({ network, record }: LocatedUserOp): Promise<void> {
    const context = JSON.parse(record.context) as WalletPaymentContext;
    return assertBalanceStillCovers(network.runtime.client, {
      wallet: record.sender as Address,
      token: context.token,
      amount: BigInt(context.totalAmount),
    });
  }

  async function send(located: LocatedUserOp, signature: Hex): Promise<WalletSettleResponse> {
    const { hash } = located;
    const record = deps.store.find(hash) ?? located.record;
    if (record.status === "success") return JSON.parse(record.result ?? "null") as WalletSettleResponse;
    if (record.status === "failed") throw ApiError.fromStored(JSON.parse(record.result ?? "null") as StoredApiError);
    // Nothing is claimed or sent for a wallet that no longer holds the total: the paymaster would pay for a revert.
    if (record.status === "issued") await assertBalanceCovers(located);
    const outcome = await sendIssuedUserOp(
      deps,
      { ...located, record },
      signature,
      (txHash) =>
        new ApiError("blockchain_error", "the UserOp reverted on-chain", {
          txHash,
          userOpHash: hash,
          status: "reverted",
        }),
    );
    const response: WalletSettleResponse = {
      success: true,
      txHash: outcome.transactionHash,
      userOpHash: hash,
      payments: transfersIn(outcome.logs, record.sender as Address),
    };
    deps.store.finish(hash, { status: "success", txHash: outcome.transactionHash, result: response });
    return response;
  }

  return {
    async settle(request: WalletSettleRequest): Promise<WalletSettleResponse> {
      const located = await checkRequest(request);
      return once(located.hash, () => send(located, request.signature));
    },
  };
}

export type WalletPaymentSettler = ReturnType<typeof createWalletPaymentSettler>;
