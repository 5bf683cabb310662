import type { Static } from "@sinclair/typebox";
import type { Account, Address, Chain, Hex, Transport, WalletClient } from "viem";
import type {
  ClaimResponseSchema,
  DeploySettleResponseSchema,
  EoaVerifyResponseSchema,
  MasterResponseSchema,
  QuoteResponseSchema,
  WalletListResponseSchema,
  WalletVerifyResponseSchema,
} from "./wire/deploy-schemas.js";
import type { NetworkName } from "./wire/networks.js";
import type { RpcUserOp } from "./wire/user-operation.js";
import type { WalletPaymentSettleResponseSchema, WalletPaymentVerifyResponseSchema } from "./wire/wallet-schemas.js";

/** The network names of the wire format (wire/networks.ts): `bsc`, `base`, `bsc-testnet`, `base-sepolia`. */
export type { NetworkName };

/** A viem wallet client with an account: it signs, and sends the approve and cancel transactions. */
export type SignerClient = WalletClient<Transport, Chain | undefined, Account>;

/** The relay402 EOA payment body (/verify, /settle): an EIP-712 TransferWithAuthorization on the relayer. */
export type PaymentPayload = {
  token: Address;
  payload: {
    authorization: { from: Address; to: Address; value: string; validAfter: number; validBefore: number; nonce: Hex };
    signature: Hex;
  };
  /** The payer's EIP-2612 permit to the relayer, for a payer with no allowance (see `signRelayerPermit`). */
  permit?: { value: string; deadline: string; signature: Hex };
  /**
   * The payer's signed, unbroadcast `approve(relayer, ≥ value)` transaction, for a payer with no allowance, no native
   * coin for that approve and a token without permit: the service funds its gas and broadcasts it (see
   * `signFundedApprove`).
   */
  approval?: { signedTransaction: Hex };
};
export type PaymentBody = {
  paymentPayload: PaymentPayload;
  paymentRequirements: { network: NetworkName; relayerContract: Address };
};
export type PaymentVerifyResult = { isValid: boolean; payer?: string; invalidReason?: string; invalidMessage?: string };
export type PaymentSettleResult = {
  success: boolean;
  /** The payment's handle: paymentIdOf(chain id, relayer, payer, nonce), computable before the call. */
  paymentId: Hex;
  transaction: Hex;
  network: string;
  payer: string;
  blockNumber: number;
  payment: { to: string; amount: string; token: string };
};

export type WalletPaymentVerifyResult = Static<typeof WalletPaymentVerifyResponseSchema> & {
  userOp: RpcUserOp;
  userOpHash: Hex;
};
export type WalletPaymentSettleResult = Static<typeof WalletPaymentSettleResponseSchema>;
export type DeploymentQuote = Static<typeof QuoteResponseSchema>;
export type EoaDeploymentVerifyResult = Static<typeof EoaVerifyResponseSchema>;
export type WalletDeploymentVerifyResult = Static<typeof WalletVerifyResponseSchema> & {
  userOp: RpcUserOp;
  userOpHash: Hex;
};
export type DeploymentSettleResult = Static<typeof DeploySettleResponseSchema>;
export type ClaimResult = Static<typeof ClaimResponseSchema>;
export type WalletList = Static<typeof WalletListResponseSchema>;
export type MasterWallet = Static<typeof MasterResponseSchema>;
