import { type TNull, type TOptional, type TUnion, Type as t } from "@sinclair/typebox";
import { AddressField, Bytes32Field, NetworkField, PaymentIdField, UintString } from "./fields.js";
import { NETWORKS, type NetworkName } from "./networks.js";
import { PaymentPayloadSchema } from "./payment-schemas.js";
import { SignatureField, UserOpSchema } from "./user-op-schema.js";

const Salts = t.Array(Bytes32Field, {
  minItems: 1,
  maxItems: 10,
  description: "1 to 10 salts, each 0x + 32 bytes hex",
});
const Nullable = <T extends ReturnType<typeof t.String>>(schema: T) => t.Union([schema, t.Null()]);

export const WalletEntrySchema = t.Object({
  address: AddressField,
  salt: Bytes32Field,
  owner: AddressField,
  fundingAmount: UintString,
});

export const QuoteBodySchema = t.Object({
  network: NetworkField,
  deployment: t.Object({ ownerAddress: AddressField, salts: Salts, token: AddressField }),
});

export const QuoteResponseSchema = t.Object({
  wallets: t.Array(WalletEntrySchema),
  deploymentFee: t.String(),
  feeRecipient: t.String(),
  relayerContract: t.String(),
  token: t.String(),
});

const EoaDeployment = t.Object({
  ownerAddress: AddressField,
  salts: Salts,
  fundingRequested: t.Boolean(),
  token: AddressField,
});
const EoaRequirements = t.Object({ network: NetworkField, relayerContract: AddressField, deployment: EoaDeployment });
const Payloads = t.Array(PaymentPayloadSchema, {
  minItems: 1,
  maxItems: 11,
  description: "1 fee payload plus up to 10 funding payloads",
});

export const EoaVerifyBodySchema = t.Object({ paymentPayload: Payloads, paymentRequirements: EoaRequirements });
export const EoaSettleBodySchema = t.Object({
  paymentPayload: Payloads,
  paymentRequirements: EoaRequirements,
  wallets: t.Array(WalletEntrySchema, { maxItems: 10 }),
});

const VerifyFields = {
  isValid: t.Boolean(),
  payer: t.Optional(t.String({ description: "the recovered signer; absent when the batch is not valid" })),
  wallets: t.Array(WalletEntrySchema),
  deploymentFee: t.String(),
  fundingFees: t.String(),
  totalFees: t.String(),
  invalidReason: Nullable(t.String()),
  invalidMessage: t.Optional(t.String()),
};
export const EoaVerifyResponseSchema = t.Object(VerifyFields);

const WalletDeployment = t.Object({
  ownerAddress: AddressField,
  salts: Salts,
  token: AddressField,
  payerAddress: AddressField,
  fundingAmounts: t.Optional(
    t.Array(UintString, { maxItems: 10, description: "one amount (wei) per salt; funding is requested when present" }),
  ),
});
const WalletRequirements = t.Object({ network: NetworkField, deployment: WalletDeployment });

export const WalletVerifyBodySchema = t.Object({ paymentRequirements: WalletRequirements });
export const WalletVerifyResponseSchema = t.Object({
  ...VerifyFields,
  userOp: UserOpSchema,
  userOpHash: t.String(),
});
export const WalletSettleBodySchema = t.Object({
  userOp: UserOpSchema,
  signature: SignatureField,
  paymentRequirements: WalletRequirements,
  wallets: t.Array(WalletEntrySchema, { maxItems: 10 }),
});

export const DeploySettleResponseSchema = t.Object({
  /** The fee payment's id (EOA) or the fee UserOp's hash. */
  paymentId: PaymentIdField,
  paymentSuccess: t.Boolean(),
  deploymentSuccess: t.Boolean(),
  fundingSuccess: t.Boolean(),
  wallets: t.Array(
    t.Object({
      address: t.String(),
      deploymentTxHash: Nullable(t.String()),
      fundingTxHash: Nullable(t.String()),
      fundingCompleted: t.Boolean(),
    }),
  ),
  failedWallets: t.Array(t.String()),
  failedFundings: t.Array(t.String()),
  paymentTxHash: Nullable(t.String()),
  deploymentFee: t.String(),
});

export const ClaimBodySchema = t.Object({
  paymentTxHash: t.Optional(Bytes32Field),
  payerAddress: t.Optional(AddressField),
  network: t.Optional(NetworkField),
});

const Failed = t.Array(t.Object({ address: t.String(), reason: t.String() }));
export const ClaimResponseSchema = t.Object({
  success: t.Boolean(),
  deployments: t.Object({
    successful: t.Array(t.Object({ address: t.String(), deploymentTxHash: t.String() })),
    failed: Failed,
  }),
  funding: t.Object({
    successful: t.Array(t.Object({ address: t.String(), fundingTxHash: t.String() })),
    failed: Failed,
  }),
  network: t.String(),
});

export const WalletInfoSchema = t.Object({
  ownerAddress: t.String(),
  walletAddress: t.String(),
  salt: t.String(),
  payerAddress: t.String(),
  paymentTxHash: Nullable(t.String()),
  deploymentTxHash: Nullable(t.String()),
  paymentCompleted: t.Boolean(),
  deploymentCompleted: t.Boolean(),
  fundingRequested: t.Boolean(),
  fundingCompleted: t.Boolean(),
  fundingAmount: t.String(),
  fundingTxHash: Nullable(t.String()),
  createdAt: t.String(),
  updatedAt: t.String(),
  network: t.String(),
});

export const OwnerParamsSchema = t.Object({
  owner: t.String({ pattern: "^0x[0-9a-fA-F]{40}$", description: "owner address" }),
});
export const OwnerQuerySchema = t.Object({ network: t.Optional(NetworkField) });
export const WalletListResponseSchema = t.Object({ master: t.Array(WalletInfoSchema), sub: t.Array(WalletInfoSchema) });
export const MasterResponseSchema = t.Object({
  ownerAddress: t.String(),
  walletAddress: t.String(),
  salt: t.String(),
  deployments: t.Object(
    Object.fromEntries(NETWORKS.map((name) => [name, t.Optional(t.Union([WalletInfoSchema, t.Null()]))])) as Record<
      NetworkName,
      TOptional<TUnion<[typeof WalletInfoSchema, TNull]>>
    >,
    { description: 'one key per network with wallet deployments enabled (decisions.md "Wallet deployment")' },
  ),
});
