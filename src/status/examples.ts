/**
 * OpenAPI examples of the status routes, /health and /config (not a flow: src/http/openapi/document.ts adds them
 * beside the flows'), of shapes the routes' schemas accept; test/http/openapi.test.ts checks each, and that the
 * real answers have their fields.
 */

import { SWAP_WITH_AUTHORIZATION_TYPE } from "@relay402/client/wire/swap/typed-data";
import { SIGNED_TYPES } from "@relay402/client/wire/transfer-typed-data";
import {
  CIRCUIT_ID,
  EXECUTOR,
  type Examples,
  FEE_RECIPIENT,
  PAYMASTER,
  PRIVACY_POOL,
  RELAYER,
  SWAP_V2_ROUTER,
  SWAP_V3_ROUTER,
  TOKEN,
  WRAPPED_NATIVE,
} from "../examples";

const health = {
  status: "ok",
  version: "0.1.0",
  networks: {
    bsc: {
      chainId: 56,
      blockNumber: 1234,
      rpc: "ok",
      bundler: "ok",
      capabilities: ["x402", "eoa-payments", "smart-wallets", "deployments", "incognito", "swaps"],
      relayer: RELAYER,
      paymaster: PAYMASTER,
      privacyPool: PRIVACY_POOL,
      executors: [{ address: EXECUTOR, balance: "99.98" }],
      paymasterDeposit: "10.0",
      swap: { status: "ok", revertCauses: "untraced" },
      keyLeases: null,
    },
  },
  database: "ok",
};

const clientConfig = {
  version: "0.1.0",
  networks: {
    bsc: {
      chainId: 56,
      eip712Domain: { name: "relay402", version: "1", chainId: 56, verifyingContract: RELAYER },
      signedType:
        "TransferWithAuthorization(address token,address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
      signedTypes: SIGNED_TYPES,
      spender: RELAYER,
      capabilities: ["x402", "eoa-payments", "smart-wallets", "deployments", "incognito", "swaps"],
      contracts: {
        relayer: RELAYER,
        factory: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
        paymaster: PAYMASTER,
        entryPoint: "0x0000000071727De22E5E9d8BAf0edAc6f37da032",
        privacyPool: PRIVACY_POOL,
      },
      feeRecipient: FEE_RECIPIENT,
      tokens: [
        {
          symbol: "USDT",
          address: TOKEN,
          decimals: 18,
          eip3009: false,
          eip2612: false,
          eip712: null,
          x402: { assetTransferMethod: "permit2" },
          fees: {
            feeBps: 50,
            minFee: "10000000000000000",
            deploymentFeePerWallet: "1000000000000000000",
            unshieldFeeBps: 50,
            unshieldMinFee: "10000000000000000",
            swapFeeBps: 30,
            swapMinFee: "10000000000000000",
          },
          minPaymentValue: "1",
          fundedApproveMinPayment: "100000000000000000",
        },
      ],
      fundedApprove: { enabled: true, maxGas: 100000, maxFeePerGas: "5000000000" },
      incognito: { pool: PRIVACY_POOL, circuitId: CIRCUIT_ID },
      swap: {
        routers: [
          { name: "pancakeswap-v2", address: SWAP_V2_ROUTER, kind: "v2" },
          { name: "pancakeswap-v3", address: SWAP_V3_ROUTER, kind: "v3" },
        ],
        connectors: [WRAPPED_NATIVE],
        wrappedNative: WRAPPED_NATIVE,
        signedType: SWAP_WITH_AUTHORIZATION_TYPE,
      },
      limits: { validBeforeMarginSeconds: 6, erc1271GasLimit: 100000 },
    },
  },
  limits: {
    maxTransactionsPerBatch: 20,
    maxSaltsPerDeployment: 10,
    maxFundingPayloads: 10,
    maxBodyBytes: 65536,
    rateLimitPerMinute: 120,
    paymasterValiditySeconds: 600,
  },
};

export const STATUS_EXAMPLES: Record<string, Examples> = {
  "GET /health": { responses: { 200: health, 503: { ...health, status: "down", database: "down" } } },
  "GET /config": { responses: { 200: clientConfig } },
};
