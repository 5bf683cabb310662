/**
 * One example per request and response body, keyed by "METHOD /path" as the document writes it. Values are
 * illustrative, of a shape the route's schema accepts (test/http/openapi.test.ts checks each against it).
 */
import { INCOGNITO_CIRCUIT_ID_EXAMPLE, INCOGNITO_EXAMPLES, INCOGNITO_POOL_EXAMPLE } from "../../incognito/examples";
import { SIGNED_TYPES } from "../../settlement/typed-data";
import { SWAP_EXAMPLES, WALLET_SWAP_EXAMPLES } from "../../swap/examples";
import { SWAP_WITH_AUTHORIZATION_TYPE } from "../../swap/typed-data";

import { EXAMPLE_PAYMASTER, EXAMPLE_WALLET, exampleUserOp } from "../../userops/examples";

type Examples = { request?: unknown; responses?: Record<string, unknown> };

const RELAYER = "0xe7a518451b8e7Abb526ea674A1D2A6720014de71";
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const PAYER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const MERCHANT = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const FEE_RECIPIENT = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const WALLET = EXAMPLE_WALLET;
const PAYMASTER = EXAMPLE_PAYMASTER;
const SWAP_V2_ROUTER = "0x10ED43C718714eb63d5aA57B78B54704E256024E";
const SWAP_V3_ROUTER = "0x13f4EA83D0bd40E75C8222255bc855a974568Dd4";
const WRAPPED_NATIVE = "0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c";
const hash = (digit: string) => `0x${digit.repeat(64)}`;
const SIGNATURE = `0x${"ab".repeat(65)}`;
const SALT = hash("0");
const NOW = 1_767_225_600;

const authorization = (value: string, to = MERCHANT) => ({
  token: TOKEN,
  payload: {
    authorization: { from: PAYER, to, value, validAfter: NOW - 60, validBefore: NOW + 600, nonce: hash("1") },
    signature: SIGNATURE,
  },
});

const walletEntry = { address: WALLET, salt: SALT, owner: PAYER, fundingAmount: "0" };
const walletInfo = {
  ownerAddress: PAYER,
  walletAddress: WALLET,
  salt: SALT,
  payerAddress: PAYER,
  paymentTxHash: hash("2"),
  deploymentTxHash: hash("3"),
  paymentCompleted: true,
  deploymentCompleted: true,
  fundingRequested: false,
  fundingCompleted: false,
  fundingAmount: "0",
  fundingTxHash: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:05.000Z",
  network: "bsc",
};
const verifyFields = {
  isValid: true,
  payer: PAYER,
  wallets: [walletEntry],
  deploymentFee: "1000000000000000000",
  fundingFees: "0",
  totalFees: "1000000000000000000",
  invalidReason: null,
};
const deploySettled = {
  paymentSuccess: true,
  deploymentSuccess: true,
  fundingSuccess: true,
  wallets: [{ address: WALLET, deploymentTxHash: hash("3"), fundingTxHash: null, fundingCompleted: false }],
  failedWallets: [],
  failedFundings: [],
  paymentTxHash: hash("2"),
  deploymentFee: "1000000000000000000",
};
const eoaDeployment = {
  network: "bsc",
  relayerContract: RELAYER,
  deployment: { ownerAddress: PAYER, salts: [SALT], fundingRequested: false, token: TOKEN },
};
const walletDeployment = {
  network: "bsc",
  deployment: { ownerAddress: PAYER, salts: [SALT], token: TOKEN, payerAddress: WALLET },
};

export const ERROR_EXAMPLE = {
  code: "payment_verification_error",
  message: `allowance too low: ${PAYER} allows spender ${RELAYER} 0, the payment needs 1000000000000000000; approve the relayer for at least that`,
  doc_url: "docs/errors.md#payment_verification_error",
  details: { spender: RELAYER, allowance: "0", needed: "1000000000000000000" },
};

const health = {
  status: "ok",
  version: "0.1.0",
  networks: {
    bsc: {
      chainId: 56,
      blockNumber: 1234,
      rpc: "ok",
      bundler: "ok",
      relayer: RELAYER,
      paymaster: PAYMASTER,
      privacyPool: INCOGNITO_POOL_EXAMPLE,
      executors: [{ address: "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", balance: "99.98" }],
      paymasterDeposit: "10.0",
      swap: { status: "ok" },
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
      contracts: {
        relayer: RELAYER,
        factory: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
        paymaster: PAYMASTER,
        entryPoint: "0x0000000071727De22E5E9d8BAf0edAc6f37da032",
        privacyPool: INCOGNITO_POOL_EXAMPLE,
      },
      feeRecipient: FEE_RECIPIENT,
      tokens: [
        {
          symbol: "USDT",
          address: TOKEN,
          decimals: 18,
          eip3009: false,
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
        },
      ],
      incognito: { pool: INCOGNITO_POOL_EXAMPLE, circuitId: INCOGNITO_CIRCUIT_ID_EXAMPLE },
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

// x402 (base, EIP-3009 on the USDC-like token; bsc with Permit2 through x402's proxy), as @x402/core sends it.
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const PERMIT2_PROXY = "0x402085c248EeA27D92E8b30b2C58ed07f9E20001";
const PRICE = "1250000";
const x402Resource = { url: "https://shop.example/item", description: "an item", mimeType: "text/plain" };
const x402Requirements = {
  scheme: "exact",
  network: "eip155:8453",
  asset: USDC,
  amount: PRICE,
  payTo: MERCHANT,
  maxTimeoutSeconds: 300,
  extra: { name: "USD Coin", version: "2" },
};
const eip3009Payload = {
  signature: SIGNATURE,
  authorization: {
    from: PAYER,
    to: MERCHANT,
    value: PRICE,
    validAfter: String(NOW - 600),
    validBefore: String(NOW + 300),
    nonce: hash("1"),
  },
};
const permit2Requirements = {
  ...x402Requirements,
  network: "eip155:56",
  asset: TOKEN,
  amount: "1250000000000000000",
  extra: { assetTransferMethod: "permit2" },
};
const x402V2 = {
  x402Version: 2,
  paymentPayload: { x402Version: 2, resource: x402Resource, accepted: x402Requirements, payload: eip3009Payload },
  paymentRequirements: x402Requirements,
};
const x402V2Permit2 = {
  x402Version: 2,
  paymentPayload: {
    x402Version: 2,
    resource: x402Resource,
    accepted: permit2Requirements,
    payload: {
      signature: SIGNATURE,
      permit2Authorization: {
        from: PAYER,
        permitted: { token: TOKEN, amount: permit2Requirements.amount },
        spender: PERMIT2_PROXY,
        nonce: "1234567890",
        deadline: String(NOW + 300),
        witness: { to: MERCHANT, validAfter: String(NOW - 600) },
      },
    },
  },
  paymentRequirements: permit2Requirements,
};
const x402V1Requirements = {
  scheme: "exact",
  network: "base",
  maxAmountRequired: PRICE,
  resource: x402Resource.url,
  description: x402Resource.description,
  mimeType: x402Resource.mimeType,
  payTo: MERCHANT,
  maxTimeoutSeconds: 300,
  asset: USDC,
  extra: { name: "USD Coin", version: "2" },
};
const x402V1 = {
  x402Version: 1,
  paymentPayload: { x402Version: 1, scheme: "exact", network: "base", payload: eip3009Payload },
  paymentRequirements: x402V1Requirements,
};

/** x402's bodies and answers on /verify and /settle, documented beside the interface's own (see document.ts). */
export const X402_EXAMPLES = {
  requests: { v2: x402V2, v2Permit2: x402V2Permit2, v1: x402V1 },
  verify: {
    valid: { isValid: true, payer: PAYER },
    invalid: {
      isValid: false,
      invalidReason: "invalid_exact_evm_insufficient_balance",
      invalidMessage: "the payer's balance is below the value",
      payer: PAYER,
    },
  },
  settle: {
    success: { success: true, payer: PAYER, transaction: hash("a"), network: "eip155:8453", amount: PRICE },
    repeated: {
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
      errorMessage: "this payment was already settled for another request",
      payer: PAYER,
      transaction: hash("a"),
      network: "eip155:8453",
    },
  },
};

export const EXAMPLES: Record<string, Examples> = {
  "POST /verify": {
    request: {
      paymentPayload: authorization("1000000000000000000"),
      paymentRequirements: { network: "bsc", relayerContract: RELAYER },
    },
    responses: { 200: { isValid: true, payer: PAYER } },
  },
  "POST /settle": {
    request: {
      paymentPayload: authorization("1000000000000000000"),
      paymentRequirements: { network: "bsc", relayerContract: RELAYER },
    },
    responses: {
      200: {
        success: true,
        transaction: hash("a").toLowerCase(),
        network: "bsc",
        payer: PAYER.toLowerCase(),
        blockNumber: 1235,
        payment: { to: MERCHANT.toLowerCase(), amount: "1000000000000000000", token: TOKEN.toLowerCase() },
      },
    },
  },
  "POST /wallet/verify": {
    request: {
      walletAddress: WALLET,
      transactions: [{ to: MERCHANT, amount: "1000000000000000000", token: TOKEN }],
      paymentRequirements: { network: "bsc" },
    },
    responses: {
      200: {
        isValid: true,
        payer: PAYER,
        userOp: exampleUserOp("0x"),
        userOpHash: hash("b"),
        feeAmount: "10000000000000000",
        totalAmount: "1010000000000000000",
      },
    },
  },
  "POST /wallet/settle": {
    request: { userOp: exampleUserOp(SIGNATURE), signature: SIGNATURE },
    responses: {
      200: {
        success: true,
        txHash: hash("c"),
        userOpHash: hash("b"),
        payments: [
          { to: MERCHANT, amount: "1000000000000000000", token: TOKEN },
          { to: FEE_RECIPIENT, amount: "10000000000000000", token: TOKEN },
        ],
      },
    },
  },
  "POST /deploy/quote": {
    request: { network: "bsc", deployment: { ownerAddress: PAYER, salts: [SALT], token: TOKEN } },
    responses: {
      200: {
        wallets: [walletEntry],
        deploymentFee: "1000000000000000000",
        feeRecipient: FEE_RECIPIENT,
        relayerContract: RELAYER,
        token: TOKEN,
      },
    },
  },
  "POST /deploy/verify": {
    request: {
      paymentPayload: [authorization("1000000000000000000", FEE_RECIPIENT)],
      paymentRequirements: eoaDeployment,
    },
    responses: { 200: verifyFields },
  },
  "POST /deploy/settle": {
    request: {
      paymentPayload: [authorization("1000000000000000000", FEE_RECIPIENT)],
      paymentRequirements: eoaDeployment,
      wallets: [walletEntry],
    },
    responses: { 200: deploySettled },
  },
  "POST /deploy/wallet/verify": {
    request: { paymentRequirements: walletDeployment },
    responses: { 200: { ...verifyFields, payer: WALLET, userOp: exampleUserOp("0x"), userOpHash: hash("d") } },
  },
  "POST /deploy/wallet/settle": {
    request: {
      userOp: exampleUserOp(SIGNATURE),
      signature: SIGNATURE,
      paymentRequirements: walletDeployment,
      wallets: [walletEntry],
    },
    responses: { 200: { ...deploySettled, paymentTxHash: hash("e") } },
  },
  "POST /wallet/claim": {
    request: { payerAddress: PAYER, network: "bsc" },
    responses: {
      200: {
        success: true,
        deployments: { successful: [{ address: WALLET, deploymentTxHash: hash("3") }], failed: [] },
        funding: { successful: [], failed: [] },
        network: "bsc",
      },
    },
  },
  "GET /wallet/{owner}": { responses: { 200: { master: [walletInfo], sub: [] } } },
  "GET /wallet/{owner}/master": {
    responses: {
      200: { ownerAddress: PAYER, walletAddress: WALLET, salt: SALT, deployments: { bsc: walletInfo, base: null } },
    },
  },
  "GET /supported": {
    responses: {
      200: {
        kinds: [
          { x402Version: 2, scheme: "exact", network: "eip155:8453" },
          { x402Version: 1, scheme: "exact", network: "base" },
        ],
        extensions: [],
        signers: { "eip155:*": ["0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"] },
      },
    },
  },
  "GET /health": { responses: { 200: health, 503: { ...health, status: "down", database: "down" } } },
  "GET /config": { responses: { 200: clientConfig } },
  ...INCOGNITO_EXAMPLES,
  ...SWAP_EXAMPLES,
  ...WALLET_SWAP_EXAMPLES,
};
