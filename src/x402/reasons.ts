/**
 * What an x402 client reads for each refusal: relay402's own rules and the checks of scheme `exact` on EVM,
 * mapped onto @x402/evm 2.27's reason codes (and the legacy x402 package's general ones where @x402/evm has
 * none). docs/errors.md shows the same table; keep both in step.
 */
export const X402_REASONS = {
  /** relay402 rule: a zero value moves nothing but costs a settle. */
  zeroValue: "invalid_exact_evm_authorization_value",
  /** relay402 rule: the token's minPaymentValue. */
  belowMinimum: "invalid_exact_evm_authorization_value",
  /** relay402 rule: validBefore at least validBeforeMarginSeconds after now. */
  validBeforeMargin: "invalid_exact_evm_payload_authorization_valid_before",
  /** relay402 rule: a payer refused after repeated on-chain reverts (no x402 code says it). */
  payerDenied: "invalid_payload",
  /**
   * relay402 rule: the asset is none of the network's tokens (GET /supported lists those it takes), whatever the
   * method. x402's general code for requirements a facilitator cannot meet; the message names the asset.
   */
  assetNotAccepted: "invalid_payment_requirements",
  /** relay402 rule: an EIP-3009 payload for one of the network's tokens that has no EIP-3009 (pay it with Permit2). */
  tokenNotEnabled: "invalid_exact_evm_eip3009_not_supported",
  /** relay402 rule: x402 is off on the network, or the network is not served at all. */
  networkNotEnabled: "invalid_network",
  valueMismatch: "invalid_exact_evm_authorization_value",
  notYetValid: "invalid_exact_evm_payload_authorization_valid_after",
  scheme: "invalid_exact_evm_scheme",
  networkMismatch: "invalid_exact_evm_network_mismatch",
  recipientMismatch: "invalid_exact_evm_recipient_mismatch",
  missingDomain: "invalid_exact_evm_missing_eip712_domain",
  malformedSignature: "invalid_exact_evm_failed_to_parse_signature",
  badSignature: "invalid_exact_evm_signature",
  nonceUsed: "invalid_exact_evm_nonce_already_used",
  insufficientBalance: "invalid_exact_evm_insufficient_balance",
  simulationFailed: "invalid_exact_evm_transaction_simulation_failed",
  transactionFailed: "invalid_exact_evm_transaction_failed",
  settlementPending: "settlement_pending",
  /** relay402's code (x402 has none): the payer's payment-identifier is bound to another body; answered with 409. */
  paymentIdentifierConflict: "payment_identifier_conflict",
  malformed: "invalid_payload",
  version: "invalid_x402_version",
  // Permit2 through x402's exact proxy (tokens without EIP-3009), in @x402/evm's permit2 codes.
  /** relay402 rules: a zero amount (the proxy reverts InvalidAmount) and the token's minPaymentValue. */
  permit2InvalidAmount: "permit2_invalid_amount",
  /** relay402 rule: the deadline at least validBeforeMarginSeconds after now (x402's own check is 6 s). */
  permit2Deadline: "permit2_deadline_expired",
  permit2NotYetValid: "permit2_not_yet_valid",
  permit2Spender: "invalid_permit2_spender",
  permit2Recipient: "invalid_permit2_recipient_mismatch",
  permit2AmountMismatch: "permit2_amount_mismatch",
  permit2TokenMismatch: "permit2_token_mismatch",
  permit2Signature: "invalid_permit2_signature",
  /** Permit2's nonce of this payer is used: settled, or spent by another permit, or invalidated. */
  permit2Nonce: "permit2_invalid_nonce",
  permit2Allowance: "permit2_allowance_required",
  permit2Balance: "permit2_insufficient_balance",
  permit2ProxyMissing: "permit2_proxy_not_deployed",
  permit2Simulation: "permit2_simulation_failed",
  // x402's eip2612GasSponsoring extension (an EIP-2612 permit to Permit2 beside a Permit2 payment), @x402/evm's codes.
  eip2612Format: "invalid_eip2612_extension_format",
  eip2612From: "eip2612_from_mismatch",
  eip2612Asset: "eip2612_asset_mismatch",
  eip2612Spender: "eip2612_spender_not_permit2",
  /** The permit's deadline at least validBeforeMarginSeconds after now (x402's own check is 6 s). */
  eip2612Deadline: "eip2612_deadline_expired",
  /** The permit's amount is not the Permit2 amount: x402's proxy reverts Permit2612AmountMismatch. */
  eip2612Amount: "permit2_2612_amount_mismatch",
  /** relay402 rule: the token is not configured with `eip2612` (checked on-chain at start). */
  eip2612NotServed: "invalid_payload",
  /** The allowance is short and the permit cannot grant it (another nonce, another signer): as @x402/evm answers. */
  eip2612Permit: "permit2_allowance_required",
  /** The chain could not be read or the transaction not sent: the payment itself may be fine. */
  unexpectedVerify: "unexpected_verify_error",
  unexpectedSettle: "unexpected_settle_error",
} as const;

export type X402Refusal = keyof typeof X402_REASONS;
