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
  /** relay402 rule: the asset is not one of the network's EIP-3009 tokens. */
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
  malformed: "invalid_payload",
  version: "invalid_x402_version",
  /** The chain could not be read or the transaction not sent: the payment itself may be fine. */
  unexpectedVerify: "unexpected_verify_error",
  unexpectedSettle: "unexpected_settle_error",
} as const;

export type X402Refusal = keyof typeof X402_REASONS;
