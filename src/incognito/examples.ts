/**
 * OpenAPI examples of the incognito routes (declared in ./flow.ts), of shapes the routes' schemas accept;
 * test/http/openapi.test.ts checks each.
 */

import { PUBLIC_SIGNALS, TREE_DEPTH } from "@relay402/client/wire/incognito/protocol";
import {
  CIRCUIT_ID,
  type Examples,
  hash,
  PAYER as OWNER,
  PRIVACY_POOL as POOL,
  pendingExample,
  MERCHANT as RECIPIENT,
  SIGNATURE,
  TOKEN,
  WALLET,
} from "../examples";
import { exampleUserOp } from "../userops/examples";

const field = (digit: string) => `0x0${digit.repeat(63)}`;

export const INCOGNITO_EXAMPLES: Record<string, Examples> = {
  "POST /wallet/incognito/verify": {
    request: {
      walletAddress: WALLET,
      incognitoData: {
        type: "unshield",
        token: TOKEN,
        withdrawAmount: "30000000000000000000",
        fee: "150000000000000000",
        recipient: RECIPIENT,
        root: field("1"),
        nullifierHash: field("2"),
        changeCommitment: field("3"),
        proof: {
          a: ["1", "2"],
          b: [
            ["3", "4"],
            ["5", "6"],
          ],
          c: ["7", "8"],
        },
      },
      paymentRequirements: { network: "bsc" },
    },
    responses: {
      200: {
        isValid: true,
        payer: OWNER,
        userOp: exampleUserOp("0x", "0x61a80"),
        userOpHash: hash("b"),
        feeAmount: "150000000000000000",
        totalAmount: "30150000000000000000",
      },
    },
  },
  "POST /wallet/incognito/settle": {
    request: { userOp: exampleUserOp(SIGNATURE, "0x61a80"), signature: SIGNATURE },
    responses: {
      200: {
        success: true,
        paymentId: hash("b"),
        txHash: hash("c"),
        userOpHash: hash("b"),
        incognito: {
          type: "unshield",
          token: TOKEN,
          amount: "30000000000000000000",
          commitment: field("3"),
          leafIndex: 7,
          nullifierHash: field("2"),
          recipient: RECIPIENT,
        },
      },
      202: pendingExample(hash("b"), WALLET),
    },
  },
  "GET /incognito/{network}/leaves": {
    responses: {
      200: { network: "bsc", pool: POOL, root: field("1"), total: 2, from: 0, leaves: [field("4"), field("5")] },
    },
  },
  "GET /incognito/circuit": {
    responses: {
      200: {
        id: CIRCUIT_ID,
        treeDepth: TREE_DEPTH,
        publicSignals: [...PUBLIC_SIGNALS],
        wasm: `/incognito/circuit/${CIRCUIT_ID}/unshield.wasm`,
        zkey: `/incognito/circuit/${CIRCUIT_ID}/unshield.zkey`,
        verificationKey: `/incognito/circuit/${CIRCUIT_ID}/verification_key.json`,
        sha256: { wasm: "c811f0df…", zkey: "a9f02a59…", verificationKey: "c4bac77a…" },
      },
    },
  },
};
