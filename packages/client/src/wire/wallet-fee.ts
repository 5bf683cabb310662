/** What decisions.md fixes for a smart-wallet payment: `max(minFee, ceil(sum × feeBps / 10000))`. */
export function walletPaymentFee(sum: bigint, token: { feeBps: number; minFee: bigint }): bigint {
  const proportional = (sum * BigInt(token.feeBps) + 9_999n) / 10_000n;
  return proportional > token.minFee ? proportional : token.minFee;
}

/**
 * The transfers of a wallet payment plus its fee to the fee recipient. A zero fee (feeBps 0 and minFee 0) is
 * left out: it would only add an empty Transfer to the payment.
 */
export function withFee<T extends { to: string; amount: bigint }>(
  transfers: readonly T[],
  fee: { to: T["to"]; amount: bigint },
): { to: T["to"]; amount: bigint }[] {
  return fee.amount > 0n ? [...transfers, fee] : [...transfers];
}
