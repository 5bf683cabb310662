import { AddressField, Bytes32Field, NetworkField } from "@relay402/client/wire/fields";
import { t } from "elysia";
import { FlowName } from "../dashboard/schemas";

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);
const Decimal = t.String({ pattern: "^[0-9]+$", description: "decimal integer (smallest units or wei)" });
/** An ISO 8601 UTC time as the records store it. */
export const IsoTime = t.String({
  pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{8,12}Z$",
  description: "ISO 8601 UTC time",
});

// Closed sets as literals, written out: Elysia's UnionEnum would fill a missing optional value with its first one.
export const PaymentStatusField = t.Union([t.Literal("pending"), t.Literal("settled"), t.Literal("failed")]);

export const PaymentRecordSchema = t.Object(
  {
    paymentId: Nullable(
      t.String({
        description:
          "paymentIdOf(chain id, contract, payer, nonce) for relayer, EIP-3009 and Permit2 payments; the userOpHash for UserOps",
      }),
    ),
    status: PaymentStatusField,
    flow: FlowName,
    network: t.String(),
    payer: t.String({ description: "the signer, or the smart wallet of a UserOp" }),
    payee: Nullable(t.String({ description: "who was paid (a wallet batch: its first transfer's recipient)" })),
    payees: t.Array(t.String(), { description: "every recipient (a wallet batch pays several)" }),
    token: Nullable(t.String()),
    amount: Nullable(t.String({ description: "smallest units of the token (a swap: what it sold)" })),
    fee: Nullable(t.String({ description: "the service's fee, smallest units of the token" })),
    transaction: Nullable(t.String({ description: "the transaction hash (a UserOp: its bundle's)" })),
    block: Nullable(t.Integer({ description: "the block of the transaction, from its receipt" })),
    gasUsed: Nullable(Decimal),
    effectiveGasPrice: Nullable(Decimal),
    createdAt: t.String({ description: "when the service first recorded it (ISO 8601 UTC)" }),
    sentAt: Nullable(t.String()),
    minedAt: Nullable(t.String({ description: "when the service read its outcome (its clock, not the block's)" })),
    failureReason: Nullable(
      t.String({ description: "the stored reason of a failure (an error code or revert reason)" }),
    ),
  },
  // Written out: Elysia sets it on a route's top-level response object, which this one also is.
  { additionalProperties: false },
);

export const PaymentListSchema = t.Object({
  payments: t.Array(PaymentRecordSchema),
  next: Nullable(t.String({ description: "the `before` of the next page; null on the last" })),
});

export const PaymentIdParams = t.Object({ paymentId: Bytes32Field });
export const TransactionParams = t.Object({ hash: Bytes32Field });

export const PaymentsQuery = t.Object({
  network: t.Optional(NetworkField),
  contract: t.Optional(AddressField),
  payer: t.Optional(AddressField),
  nonce: t.Optional(
    t.String({
      pattern: "^(0x[0-9a-fA-F]{1,64}|[0-9]{1,78})$",
      description: "the signed nonce: 32-byte hex (relayer, EIP-3009) or decimal (Permit2)",
    }),
  ),
  payee: t.Optional(AddressField),
  flow: t.Optional(FlowName),
  status: t.Optional(PaymentStatusField),
  since: t.Optional(IsoTime),
  before: t.Optional(IsoTime),
  // Digits, bounded below: a query string's integer is coerced before it is checked, and its refusal would name no field.
  limit: t.Optional(t.String({ pattern: "^[0-9]{1,6}$", description: "payments per page, 1 to 200 (default 50)" })),
});
