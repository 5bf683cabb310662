/** What decisions.md fixes for a smart-wallet payment: `max(minFee, ceil(sum × feeBps / 10000))`. */
export function walletPaymentFee(sum: bigint, token: { feeBps: number; minFee: string }): bigint {
  const proportional = (sum * BigInt(token.feeBps) + 9_999n) / 10_000n;
  const minimum = BigInt(token.minFee);
  return proportional > minimum ? proportional : minimum;
}
