/**
 * OpenAPI examples of the swap routes (declared in ./flow.ts), of shapes the routes' schemas accept;
 * test/http/openapi.test.ts checks each.
 */
import { type Hex, keccak256 } from "viem";
import {
  type Examples,
  hash,
  NOW,
  PAYER,
  PAYMENT_ID,
  pendingExample,
  RELAYER,
  SIGNATURE,
  SWAP_V3_ROUTER,
  TOKEN,
  WALLET,
  WRAPPED_NATIVE,
} from "../examples";
import { exampleUserOp } from "../userops/examples";

const DAI = "0x1AF3F329e8BE154074D8769D1FFa4eE058B1DBc3";

const quoted = {
  buyAmount: "98402317722316553401",
  minBuyAmount: "97910306133705970634",
  slippageBps: 50,
  route: [
    { dex: "pancakeswap-v3", kind: "v3", tokenIn: TOKEN, tokenOut: WRAPPED_NATIVE, fee: 500 },
    { dex: "pancakeswap-v3", kind: "v3", tokenIn: WRAPPED_NATIVE, tokenOut: DAI, fee: 2500 },
  ],
  priceImpactBps: 36,
};

export const WALLET_SWAP_EXAMPLES: Record<string, Examples> = {
  "POST /wallet/swap/verify": {
    request: {
      walletAddress: WALLET,
      swap: { sellToken: TOKEN, buyToken: DAI, sellAmount: "100000000000000000000", slippageBps: 50 },
      paymentRequirements: { network: "bsc" },
    },
    responses: {
      200: {
        isValid: true,
        payer: PAYER,
        userOp: exampleUserOp("0x", "0x4c4b40"),
        userOpHash: hash("e"),
        feeAmount: "300000000000000000",
        totalAmount: "100000000000000000000",
        recipient: WALLET,
        ...quoted,
      },
    },
  },
  "POST /wallet/swap/settle": {
    request: { userOp: exampleUserOp(SIGNATURE, "0x4c4b40"), signature: SIGNATURE },
    responses: {
      200: {
        success: true,
        paymentId: hash("e"),
        txHash: hash("f"),
        userOpHash: hash("e"),
        payments: [{ to: RELAYER, amount: "100000000000000000000", token: TOKEN }],
        swap: {
          sellToken: TOKEN,
          buyToken: DAI,
          sellAmount: "100000000000000000000",
          fee: "300000000000000000",
          buyAmount: "98398120011874502233",
          recipient: WALLET,
        },
      },
      202: pendingExample(hash("e"), WALLET),
    },
  },
};

/** The example route's packed path: TOKEN, fee 500, WRAPPED_NATIVE, fee 2500, DAI. */
const SWAP_PATH = `${TOKEN}0001f4${WRAPPED_NATIVE.slice(2)}0009c4${DAI.slice(2)}`.toLowerCase();

const swapQuote = {
  network: "bsc",
  sellToken: TOKEN,
  buyToken: DAI,
  sellAmount: "100000000000000000000",
  fee: "300000000000000000",
  buyAmount: "98402317722316553401",
  minBuyAmount: "97910306133705970634",
  slippageBps: 50,
  route: [
    { dex: "pancakeswap-v3", kind: "v3", tokenIn: TOKEN, tokenOut: WRAPPED_NATIVE, fee: 500 },
    { dex: "pancakeswap-v3", kind: "v3", tokenIn: WRAPPED_NATIVE, tokenOut: DAI, fee: 2500 },
  ],
  router: SWAP_V3_ROUTER,
  path: SWAP_PATH,
  priceImpactBps: 36,
  validBefore: NOW + 120,
  relayerContract: RELAYER,
};

const swapBody = {
  swapPayload: {
    authorization: {
      from: PAYER,
      sellToken: TOKEN,
      buyToken: DAI,
      sellAmount: "100000000000000000000",
      minBuyAmount: "97910306133705970634",
      recipient: PAYER,
      fee: "300000000000000000",
      router: SWAP_V3_ROUTER,
      routeHash: keccak256(SWAP_PATH as Hex),
      validAfter: NOW - 60,
      validBefore: NOW + 120,
      nonce: hash("4"),
    },
    signature: SIGNATURE,
    path: SWAP_PATH,
  },
  swapRequirements: { network: "bsc", relayerContract: RELAYER },
};

/** The EOA swap routes: quote, then verify and settle of the signed SwapWithAuthorization. */
export const SWAP_EXAMPLES: Record<string, Examples> = {
  "POST /swap/verify": {
    request: swapBody,
    responses: { 200: { isValid: true, payer: PAYER, buyAmount: "98402317722316553401" } },
  },
  "POST /swap/settle": {
    request: swapBody,
    responses: {
      200: {
        success: true,
        paymentId: PAYMENT_ID,
        transaction: hash("b").toLowerCase(),
        network: "bsc",
        payer: PAYER.toLowerCase(),
        blockNumber: 1240,
        swap: {
          sellToken: TOKEN.toLowerCase(),
          buyToken: DAI.toLowerCase(),
          sellAmount: "100000000000000000000",
          fee: "300000000000000000",
          buyAmount: "98402317722316553401",
          recipient: PAYER.toLowerCase(),
        },
      },
      202: pendingExample(PAYMENT_ID, PAYER, hash("b").toLowerCase()),
    },
  },
  "POST /swap/quote": {
    request: { network: "bsc", sellToken: TOKEN, buyToken: DAI, sellAmount: "100000000000000000000", slippageBps: 50 },
    responses: { 200: swapQuote },
  },
};
