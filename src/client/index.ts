export { type Note, newNote } from "../incognito/notes";
export { type ApproveRelayerParameters, approveRelayer } from "./approve-relayer";
export {
  type CancelAuthorizationParameters,
  cancelAuthorization,
  cancelAuthorizationTypes,
} from "./cancel-authorization";
export {
  assertUserOpIsShield,
  assertUserOpIsUnshield,
  type ExpectedShield,
  type ExpectedUnshield,
} from "./check-incognito-user-op";
export {
  assertSwapQuote,
  type ExpectedEoaSwap,
  type ExpectedSwap,
  expectedSwapFee,
  type SwapBound,
  type SwapQuote,
  swapFloor,
} from "./check-swap-quote";
export { assertUserOpIsSwap, type ExpectedWalletSwap, type SignedWalletSwap } from "./check-swap-user-op";
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
export {
  type CircuitArtifacts,
  getIncognitoNetwork,
  type IncognitoSettleResult,
  type IncognitoVerifyResult,
  maxWithdrawal,
  type PreparedUnshield,
  proveUnshieldNote,
  reconcileNotes,
  type ShieldParameters,
  type ShieldResult,
  servedCircuit,
  shield,
  syncLeaves,
  type UnshieldParameters,
  type UnshieldResult,
  unshield,
  unshieldFee,
} from "./incognito";
export {
  jsonFileNoteStorage,
  memoryNoteStorage,
  type NoteStorage,
  notesFromJson,
  notesToJson,
  putNote,
  type StoredNote,
  spendableNotes,
  storedNote,
} from "./incognito-notes";
export { type PayParameters, type PayResult, pay, settlePayment, verifyPayment } from "./pay";
export { createRawClient, type RawApp } from "./raw";
export { signTransferAuthorization, transferWithAuthorizationTypes } from "./sign-authorization";
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
} from "./swap";
export type * from "./types";
export { payFromWallet, signedUserOp, type WalletPaymentParameters } from "./wallet-payment";
export { claim, getMasterWallet, getWallets } from "./wallet-queries";
export {
  swapFromWallet,
  type WalletSwapParameters,
  type WalletSwapResult,
  type WalletSwapSettleResult,
  type WalletSwapVerifyResult,
} from "./wallet-swap";
