import { erc20Abi } from "@relay402/client/wire/abis";
import { type Address, isAddressEqual } from "viem";
import { MULTICALL3 } from "../chain/addresses";
import { ApiError, type ErrorCode } from "../errors";
import { shortReason } from "../logger";
import { type Authorization, type PaymentPayloadBody, parseAuthorization } from "../settlement/authorization";
import type { PaymentRules } from "../settlement/payment-rules";
import type { RelayerPort } from "../settlement/relayer-port";
import { verifyPayment } from "../settlement/verify-payment";
import type { DeploymentPlan } from "./plan";

export type EoaPayments = { payer: Address; fee: Authorization; fundings: Authorization[] };
export type Verdict = { isValid: true } | { isValid: false; invalidReason: ErrorCode; invalidMessage: string };

/**
 * `paymentPayload[0]` is the fee; with funding, `paymentPayload[i]` funds wallet i-1. A payload count
 * that does not fit the salts cannot be evaluated (400); anything else is a verdict.
 */
export function parseEoaPayments(
  plan: DeploymentPlan,
  payloads: PaymentPayloadBody[],
  fundingRequested: boolean,
): EoaPayments {
  const expected = fundingRequested ? plan.salts.length + 1 : 1;
  if (payloads.length !== expected) {
    throw new ApiError(
      "validation_error",
      fundingRequested
        ? `funding payloads do not match the salts: expected 1 fee payload and ${plan.salts.length} funding payloads, got ${payloads.length} payloads`
        : `expected exactly 1 fee payload without funding, got ${payloads.length}`,
      { field: "paymentPayload" },
    );
  }
  const [fee, ...fundings] = payloads.map((payload, i) => parseAuthorization(payload, `paymentPayload.${i}`)) as [
    Authorization,
    ...Authorization[],
  ];
  return { payer: fee.from, fee, fundings };
}

const invalid = (invalidReason: ErrorCode, invalidMessage: string): Verdict => ({
  isValid: false,
  invalidReason,
  invalidMessage,
});

/** What the payloads must pay, then the relayer's five checks per payload, then balance and allowance for the total. */
export async function checkEoaPayments(
  deps: { relayer: RelayerPort; rules: PaymentRules; now: () => bigint },
  plan: DeploymentPlan,
  payments: EoaPayments,
  relayerContract: string,
): Promise<Verdict> {
  const all = [payments.fee, ...payments.fundings];
  const foreign = all.findIndex((a) => a.from !== payments.payer);
  if (foreign >= 0)
    return invalid(
      "payment_verification_error",
      `paymentPayload[${foreign}] is not from the fee payer ${payments.payer}`,
    );
  const wrongToken = all.findIndex((a) => !isAddressEqual(a.token, plan.token.address));
  if (wrongToken >= 0)
    return invalid(
      "payment_verification_error",
      `paymentPayload[${wrongToken}] is not in the deployment token ${plan.token.address}`,
    );
  if (!isAddressEqual(payments.fee.to, plan.feeRecipient)) {
    return invalid("payment_verification_error", `the fee payload must pay the fee recipient ${plan.feeRecipient}`);
  }
  if (payments.fee.value !== plan.deploymentFee) {
    return invalid(
      "payment_verification_error",
      `the fee payload must pay exactly the deployment fee ${plan.deploymentFee}`,
    );
  }
  for (const [i, funding] of payments.fundings.entries()) {
    if (!isAddressEqual(funding.to, plan.wallets[i] as Address)) {
      return invalid(
        "payment_verification_error",
        `paymentPayload[${i + 1}] must pay wallet ${plan.wallets[i]} (salt ${plan.salts[i]})`,
      );
    }
    if (funding.value === 0n)
      return invalid("payment_verification_error", `paymentPayload[${i + 1}] funds nothing (value 0)`);
  }
  const nonces = all.map((a) => a.nonce);
  const reused = nonces.findIndex((nonce, i) => nonces.indexOf(nonce) !== i);
  if (reused >= 0) return invalid("nonce_error", `paymentPayload[${reused}] reuses the nonce of an earlier payload`);

  const context = { relayer: deps.relayer, relayerAddress: plan.relayer, now: deps.now, rules: deps.rules };
  const verdicts = await Promise.all(
    all.map((authorization) => verifyPayment(context, authorization, relayerContract)),
  );
  const failed = verdicts.findIndex((verdict) => !verdict.isValid);
  if (failed >= 0) {
    const verdict = verdicts[failed] as Extract<(typeof verdicts)[number], { isValid: false }>;
    return invalid(verdict.invalidReason, `paymentPayload[${failed}]: ${verdict.invalidMessage}`);
  }

  const total = all.reduce((sum, a) => sum + a.value, 0n);
  let balance: bigint;
  let allowance: bigint;
  try {
    [balance, allowance] = await plan.network.client.multicall({
      multicallAddress: MULTICALL3,
      allowFailure: false,
      contracts: [
        { address: plan.token.address, abi: erc20Abi, functionName: "balanceOf", args: [payments.payer] },
        { address: plan.token.address, abi: erc20Abi, functionName: "allowance", args: [payments.payer, plan.relayer] },
      ],
    });
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to read on-chain state", { reason: shortReason(error) });
  }
  if (balance < total)
    return invalid("payment_verification_error", `balance too low for all payloads (${balance} < ${total})`);
  if (allowance < total)
    return invalid("payment_verification_error", `allowance too low for all payloads (${allowance} < ${total})`);
  return { isValid: true };
}
