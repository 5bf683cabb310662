export { type ApproveRelayerParameters, approveRelayer } from "./approve-relayer";
export {
  type CancelAuthorizationParameters,
  cancelAuthorization,
  cancelAuthorizationTypes,
} from "./cancel-authorization";
export { assertUserOpIsPayment, type ExpectedUserOp } from "./check-user-op";
export { createRelay402Client, type Relay402Client, type Relay402ClientOptions } from "./client";
export {
  type DeploymentRequest,
  deployWalletsFromEoa,
  deployWalletsFromWallet,
  quoteDeployment,
} from "./deploy-wallets";
export { type ClientErrorCode, Relay402ClientError } from "./errors";
export { getConfig, getNetworkConfig, type NetworkConfig, type ServiceConfig, type TokenConfig } from "./get-config";
export { type PayParameters, type PayResult, pay, settlePayment, verifyPayment } from "./pay";
export { createRawClient, type RawApp } from "./raw";
export { signTransferAuthorization, transferWithAuthorizationTypes } from "./sign-authorization";
export type * from "./types";
export { payFromWallet, signedUserOp, type WalletPaymentParameters } from "./wallet-payment";
export { claim, getMasterWallet, getWallets } from "./wallet-queries";
