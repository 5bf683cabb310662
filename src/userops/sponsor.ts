import { toRpcUserOp, type UserOp } from "@relay402/client/wire/user-operation";
import type { Address, Hex } from "viem";
import type { LocalAccount } from "viem/accounts";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import { type Bundler, BundlerRejectedError } from "./bundler";
import { assertWithinCaps, type UserOpCaps } from "./caps";
import { encodePaymasterData, STUB_PAYMASTER_SIGNATURE, signPaymasterData } from "./paymaster-data";

/**
 * The bundler could not estimate the UserOp (500 blockchain_error). The bundler's answer stays the cause: a flow
 * that knows the calls' custom errors reads the revert data it quoted (BundlerRejectedError.quotedData).
 */
export class EstimateFailedError extends ApiError {
  override name = "EstimateFailedError";
  constructor(override readonly cause: unknown) {
    super("blockchain_error", "failed to estimate gas for the UserOp", { reason: shortReason(cause) });
  }

  /** The hex data the bundler quoted when it refused the estimate; none when it failed otherwise. */
  get quotedData(): Hex[] {
    const rejected = this.walk((error) => error instanceof BundlerRejectedError);
    return rejected instanceof BundlerRejectedError ? rejected.quotedData : [];
  }
}

/** A signature of the right shape for estimation; it recovers to nobody, so the account reports "failed", not a revert. */
export const STUB_ACCOUNT_SIGNATURE: Hex = `0x${"ff".repeat(64)}1c`;

export type SponsorContext = {
  bundler: Bundler;
  chainId: number;
  paymaster: Address;
  paymasterSigner: LocalAccount;
  validitySeconds: number;
  /** Bounds on the bundler's gas and fee proposal; above them nothing is signed (UserOpCapError). */
  caps: UserOpCaps;
  now?: () => number;
  /**
   * Extra call gas over the bundler's estimate, in percent (default none): for calls whose cost depends on state
   * that may change before the UserOp is mined (a DEX pool's price accumulators and ticks).
   */
  callGasMarginPercent?: number;
};

/**
 * Builds a paymaster-sponsored UserOp for `callData`: gas from the bundler's estimate (with stub
 * signatures), fees from the bundler's gas price, both checked against the caps, then the paymaster's
 * signature over the final fields.
 * The returned UserOp carries `signature: 0x`; the owner signs its hash.
 */
export async function buildSponsoredUserOp(
  request: { sender: Address; nonce: bigint; callData: Hex },
  context: SponsorContext,
): Promise<{ userOp: UserOp; validUntil: number }> {
  const now = Math.floor((context.now?.() ?? Date.now()) / 1000);
  const window = { validUntil: now + context.validitySeconds, validAfter: 0 };
  const fees = await context.bundler.gasPrice();
  const draft: UserOp = {
    sender: request.sender,
    nonce: request.nonce,
    callData: request.callData,
    callGasLimit: 0n,
    verificationGasLimit: 0n,
    preVerificationGas: 0n,
    ...fees,
    paymaster: context.paymaster,
    paymasterVerificationGasLimit: 0n,
    paymasterPostOpGasLimit: 0n,
    paymasterData: encodePaymasterData(window, STUB_PAYMASTER_SIGNATURE),
    signature: STUB_ACCOUNT_SIGNATURE,
  };
  const gas = await context.bundler.estimateGas(toRpcUserOp(draft));
  const userOp: UserOp = {
    ...draft,
    ...gas,
    // The owner's real signature costs what the stub cost; a margin covers EIP-191 vs raw recovery paths.
    verificationGasLimit: (gas.verificationGasLimit * 12n) / 10n,
    callGasLimit: (gas.callGasLimit * BigInt(100 + (context.callGasMarginPercent ?? 0))) / 100n,
    paymasterVerificationGasLimit:
      gas.paymasterVerificationGasLimit > 0n ? (gas.paymasterVerificationGasLimit * 12n) / 10n : 60_000n,
    signature: "0x",
  };
  assertWithinCaps(userOp, context.caps);
  userOp.paymasterData = await signPaymasterData(userOp, {
    chainId: context.chainId,
    paymaster: context.paymaster,
    signer: context.paymasterSigner,
    window,
  });
  return { userOp, validUntil: window.validUntil };
}
