import { Type as t } from "@sinclair/typebox";
import {
  AddressField,
  Bytes32Field,
  JsonInteger,
  NetworkField,
  PaymentIdField,
  UintString,
  UnixTimeField,
} from "../fields.js";
import { UserOpSchema } from "../user-op-schema.js";

const Amount = t.String({ description: "decimal integer in the token's smallest unit" });
/** The two ways to bound a swap's output (decisions.md "Swaps"), the same for EOA and wallet swaps. */
const SlippageBps = t.Optional(
  JsonInteger({
    minimum: 0,
    description: "default 50, at most 500; minBuyAmount = floor(buyAmount × (10000 − slippageBps) / 10000)",
  }),
);
const MinBuyAmount = t.Optional(
  t.String({ ...UintString, description: "the minimum output instead of slippageBps (not both)" }),
);

/** decisions.md "Swaps": slippageBps above 500 or a zero amount is checked in the use case (its own message). */
export const SwapQuoteBodySchema = t.Object({
  network: NetworkField,
  sellToken: AddressField,
  buyToken: AddressField,
  sellAmount: UintString,
  slippageBps: SlippageBps,
  minBuyAmount: MinBuyAmount,
  recipient: t.Optional(t.String({ ...AddressField, description: "who receives buyToken; default the payer (from)" })),
  from: t.Optional(t.String({ ...AddressField, description: "the payer; needed for mode eoa (it signs)" })),
  mode: t.Optional(
    t.Union([t.Literal("eoa"), t.Literal("wallet")], {
      description: "eoa: the answer adds the ready-to-sign SwapWithAuthorization typed data",
    }),
  ),
});

const RouteHop = t.Object({
  dex: t.String(),
  kind: t.Union([t.Literal("v2"), t.Literal("v3")]),
  tokenIn: t.String(),
  tokenOut: t.String(),
  fee: t.Optional(t.Integer({ description: "V3 pool fee tier (hundredths of a basis point)" })),
});

const SwapMessage = t.Object({
  from: t.String(),
  sellToken: t.String(),
  buyToken: t.String(),
  sellAmount: Amount,
  minBuyAmount: Amount,
  recipient: t.String(),
  fee: Amount,
  router: t.String(),
  routeHash: t.String({ description: "keccak256 of the packed path (the quote's `path`)" }),
  validAfter: UnixTimeField,
  validBefore: UnixTimeField,
  nonce: t.String(),
});

const RoutePath = t.String({
  pattern: "^0x([0-9a-fA-F]{2}){40,2000}$",
  description:
    "the route's packed path as the relayer takes it: V2 = token addresses (20 bytes each); V3 = token, fee tier (3 bytes), token, ...",
});

export const SwapQuoteResponseSchema = t.Object({
  network: t.String(),
  sellToken: t.String(),
  buyToken: t.String(),
  sellAmount: Amount,
  fee: Amount,
  buyAmount: Amount,
  minBuyAmount: Amount,
  slippageBps: t.Integer(),
  route: t.Array(RouteHop),
  router: t.String({ description: "the router of the route (what an EOA swap signs as `router`)" }),
  path: t.String({ description: "the route's packed path; its keccak256 is what an EOA swap signs as `routeHash`" }),
  priceImpactBps: t.Integer(),
  validBefore: UnixTimeField,
  relayerContract: t.String(),
  typedData: t.Optional(
    t.Object(
      {
        domain: t.Object({
          name: t.String(),
          version: t.String(),
          chainId: t.Integer(),
          verifyingContract: t.String(),
        }),
        types: t.Record(t.String(), t.Array(t.Object({ name: t.String(), type: t.String() }))),
        primaryType: t.Literal("SwapWithAuthorization"),
        message: SwapMessage,
      },
      { description: "mode eoa: viem-ready signTypedData arguments (a fresh random nonce)" },
    ),
  ),
});

export const SwapBodySchema = t.Object({
  swapPayload: t.Object({
    authorization: t.Object({
      from: AddressField,
      sellToken: AddressField,
      buyToken: AddressField,
      sellAmount: UintString,
      minBuyAmount: UintString,
      recipient: AddressField,
      fee: UintString,
      router: AddressField,
      routeHash: Bytes32Field,
      validAfter: UnixTimeField,
      validBefore: UnixTimeField,
      nonce: Bytes32Field,
    }),
    signature: t.String({ maxLength: 10_000, description: "EIP-712 signature (65 bytes for an EOA)" }),
    path: RoutePath,
  }),
  swapRequirements: t.Object({ network: NetworkField, relayerContract: AddressField }),
});

export const SwapVerifyResponseSchema = t.Object({
  isValid: t.Boolean(),
  payer: t.Optional(t.String()),
  invalidReason: t.Optional(t.String()),
  invalidMessage: t.Optional(t.String()),
  buyAmount: t.Optional(Amount),
});

export const SwapSettleResponseSchema = t.Object({
  success: t.Boolean(),
  paymentId: PaymentIdField,
  transaction: t.String(),
  network: t.String(),
  payer: t.String(),
  blockNumber: t.Integer(),
  swap: t.Object({
    sellToken: t.String(),
    buyToken: t.String(),
    sellAmount: Amount,
    fee: Amount,
    buyAmount: Amount,
    recipient: t.String(),
  }),
});

/** decisions.md "Swaps": a smart wallet's swap; the fee is inside sellAmount, the recipient defaults to the wallet. */
export const WalletSwapVerifyBodySchema = t.Object({
  walletAddress: AddressField,
  swap: t.Object({
    sellToken: t.String({
      ...AddressField,
      description: "a token of /config on this network (the fee is taken in it)",
    }),
    buyToken: AddressField,
    sellAmount: t.String({ ...UintString, description: "exactly what leaves the wallet, the fee included" }),
    slippageBps: SlippageBps,
    minBuyAmount: MinBuyAmount,
    recipient: t.Optional(t.String({ ...AddressField, description: "who receives buyToken; default the wallet" })),
  }),
  paymentRequirements: t.Object({ network: NetworkField }),
});

const WalletSwapQuoted = {
  buyAmount: t.String({ description: "what the route pays now for sellAmount − feeAmount" }),
  minBuyAmount: t.String({ description: "the minimum the UserOp's swapBatch enforces at the recipient" }),
  slippageBps: t.Integer(),
  route: t.Array(RouteHop),
  priceImpactBps: t.Integer(),
};

export const WalletSwapVerifyResponseSchema = t.Union([
  t.Object({
    isValid: t.Literal(true),
    payer: t.String({ description: "owner EOA of the smart wallet" }),
    userOp: UserOpSchema,
    userOpHash: Bytes32Field,
    feeAmount: t.String({ description: "swap fee in the sell token's smallest unit, inside sellAmount" }),
    totalAmount: t.String({ description: "what leaves the wallet: sellAmount" }),
    recipient: t.String(),
    ...WalletSwapQuoted,
  }),
  t.Object({
    isValid: t.Literal(false),
    payer: t.String({ description: "owner EOA of the smart wallet" }),
    invalidReason: t.String(),
    invalidMessage: t.String({ description: 'for example "price moved below minBuyAmount"' }),
    ...WalletSwapQuoted,
  }),
]);

export const WalletSwapSettleResponseSchema = t.Object({
  success: t.Boolean(),
  paymentId: PaymentIdField,
  txHash: Bytes32Field,
  userOpHash: Bytes32Field,
  payments: t.Array(t.Object({ to: t.String(), amount: t.String(), token: t.String() }), {
    description: "the Transfer events out of the wallet during this UserOp (sellAmount to the relayer)",
  }),
  swap: t.Object(
    {
      sellToken: t.String(),
      buyToken: t.String(),
      sellAmount: Amount,
      fee: Amount,
      buyAmount: t.String({ description: "what the recipient received, measured by the relayer" }),
      recipient: t.String(),
    },
    { description: "the relayer's SwapExecuted event of this UserOp" },
  ),
});
