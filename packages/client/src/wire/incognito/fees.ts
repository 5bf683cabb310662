/**
 * The smallest fee an unshield may pay (decisions.md "Incognito"): `max(unshieldMinFee, ceil(withdrawAmount ×
 * unshieldFeeBps / 10000))`. The client proves its fee (the proof binds it), so verify only checks it is enough.
 */
export function unshieldMinimumFee(
  withdrawAmount: bigint,
  token: { unshieldFeeBps: number; unshieldMinFee: bigint },
): bigint {
  const proportional = (withdrawAmount * BigInt(token.unshieldFeeBps) + 9_999n) / 10_000n;
  return proportional > token.unshieldMinFee ? proportional : token.unshieldMinFee;
}
