// @relay402/client: pay, deploy smart wallets and swap through a relay402 service, checking every answer before
// signing it. Incognito (shield, unshield) is @relay402/client/incognito.
export { type ApproveRelayerParameters, approveRelayer } from "./approve-relayer.js";
export {
  type CancelAuthorizationParameters,
  cancelAuthorization,
  cancelAuthorizationTypes,
} from "./cancel-authorization.js";
export {
  assertSwapQuote,
  type ExpectedEoaSwap,
  type ExpectedSwap,
  expectedSwapFee,
  type SwapBound,
  type SwapQuote,
  swapFloor,
} from "./check-swap-quote.js";
export { assertUserOpIsSwap, type ExpectedWalletSwap, type SignedWalletSwap } from "./check-swap-user-op.js";
export { assertUserOpIsPayment, type ExpectedUserOp } from "./check-user-op.js";
export { createRelay402Client, type Relay402Client, type Relay402ClientOptions } from "./client.js";
export {
  type DeploymentRequest,
  deployWalletsFromEoa,
  deployWalletsFromWallet,
  quoteDeployment,
} from "./deploy-wallets.js";
export { type ClientErrorCode, Relay402ClientError } from "./errors.js";
export {
  getConfig,
  getNetworkConfig,
  type NetworkConfig,
  type ServiceConfig,
  type TokenConfig,
  tokenOf,
} from "./get-config.js";
export {
  chooseOnboarding,
  type Onboarding,
  onboardPayer,
  signFundedApprove,
  signRelayerPermit,
} from "./onboarding.js";
export { type PayParameters, type PayResult, pay, settlePayment, verifyPayment } from "./pay.js";
export { signTransferAuthorization, transferWithAuthorizationTypes } from "./sign-authorization.js";
export {
  type QuoteSwapParameters,
  quoteSwap,
  type SwapBody,
  type SwapOrder,
  type SwapParameters,
  type SwapResult,
  type SwapSettleResult,
  type SwapVerifyResult,
  settleSwap,
  swap,
  verifySwap,
} from "./swap.js";
export type * from "./types.js";
export { decodeBatch } from "./user-op-batch.js";
export { payFromWallet, signedUserOp, type WalletPaymentParameters } from "./wallet-payment.js";
export { claim, getMasterWallet, getWallets } from "./wallet-queries.js";
export {
  swapFromWallet,
  type WalletSwapParameters,
  type WalletSwapResult,
  type WalletSwapSettleResult,
  type WalletSwapVerifyResult,
} from "./wallet-swap.js";
export { type PaymentNonceSpace, paymentIdOf } from "./wire/payment-id.js";
