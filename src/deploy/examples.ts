/**
 * OpenAPI examples of the wallet deployment routes (declared in ./flow.ts), of shapes the routes' schemas accept;
 * test/http/openapi.test.ts checks each.
 */
import {
  type Examples,
  exampleAuthorization,
  FEE_RECIPIENT,
  hash,
  PAYER,
  PAYMENT_ID,
  pendingExample,
  RELAYER,
  SALT,
  SIGNATURE,
  TOKEN,
  WALLET,
} from "../examples";
import { exampleUserOp } from "../userops/examples";

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
  paymentId: PAYMENT_ID,
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

export const DEPLOYMENT_EXAMPLES: Record<string, Examples> = {
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
      paymentPayload: [exampleAuthorization("1000000000000000000", FEE_RECIPIENT)],
      paymentRequirements: eoaDeployment,
    },
    responses: { 200: verifyFields },
  },
  "POST /deploy/settle": {
    request: {
      paymentPayload: [exampleAuthorization("1000000000000000000", FEE_RECIPIENT)],
      paymentRequirements: eoaDeployment,
      wallets: [walletEntry],
    },
    responses: { 200: deploySettled, 202: pendingExample(PAYMENT_ID, PAYER, hash("2")) },
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
    responses: {
      200: { ...deploySettled, paymentId: hash("d"), paymentTxHash: hash("e") },
      202: pendingExample(hash("d"), WALLET),
    },
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
};
