import { Type as t } from "@sinclair/typebox";
import { AddressField, Bytes32Field, NetworkField, PaymentIdField, UintString } from "../fields.js";
import { UserOpSchema } from "../user-op-schema.js";

const FieldElement = (description: string) =>
  t.String({ pattern: "^0x[0-9a-fA-F]{64}$", description: `${description} (0x-prefixed 32-byte field element)` });
const Pair = t.Array(UintString, { minItems: 2, maxItems: 2 });

/**
 * Both operations in one object: `type` picks the fields that must be present (checked by the verify use case,
 * which names the missing one). One flat schema rather than a union, so that a malformed field is named too.
 */
export const IncognitoDataSchema = t.Object(
  {
    type: t.Union([t.Literal("shield"), t.Literal("unshield")]),
    token: AddressField,
    amount: t.Optional(t.String({ ...UintString, description: "shield: the amount deposited (< 2^128)" })),
    precommitment: t.Optional(
      FieldElement("shield: Poseidon(nullifier, secret); the pool computes the commitment from it"),
    ),
    commitment: t.Optional(FieldElement("shield, optional: Poseidon(token, amount, precommitment), checked if given")),
    withdrawAmount: t.Optional(t.String({ ...UintString, description: "unshield: paid to recipient" })),
    fee: t.Optional(t.String({ ...UintString, description: "unshield: paid to the network's feeRecipient (proven)" })),
    recipient: t.Optional(t.String({ ...AddressField, description: "unshield: receives withdrawAmount" })),
    root: t.Optional(FieldElement("unshield: a root of the pool's history")),
    nullifierHash: t.Optional(FieldElement("unshield: Poseidon(nullifier) of the spent note")),
    changeCommitment: t.Optional(FieldElement("unshield: the change note, inserted even when its amount is 0")),
    proof: t.Optional(
      t.Object(
        { a: Pair, b: t.Array(Pair, { minItems: 2, maxItems: 2 }), c: Pair },
        { description: "unshield: Groth16 proof, decimal strings in snarkjs exportSolidityCallData order" },
      ),
    ),
  },
  { description: "shield: token, amount, precommitment (commitment optional) · unshield: every other field" },
);

export const IncognitoVerifyBodySchema = t.Object({
  walletAddress: AddressField,
  incognitoData: IncognitoDataSchema,
  paymentRequirements: t.Object({ network: NetworkField }),
});

export const IncognitoVerifyResponseSchema = t.Object({
  isValid: t.Boolean(),
  payer: t.String({ description: "owner EOA of the smart wallet" }),
  userOp: UserOpSchema,
  userOpHash: Bytes32Field,
  feeAmount: t.String({ description: "shield: the wallet payment fee; unshield: the proven fee" }),
  totalAmount: t.String({ description: "shield: amount + fee (out of the wallet); unshield: withdrawAmount + fee" }),
});

export const IncognitoSettleResponseSchema = t.Object({
  success: t.Boolean(),
  paymentId: PaymentIdField,
  txHash: Bytes32Field,
  userOpHash: Bytes32Field,
  incognito: t.Object(
    {
      type: t.Union([t.Literal("shield"), t.Literal("unshield")]),
      token: t.String(),
      amount: t.String({ description: "shield: amount; unshield: withdrawAmount" }),
      commitment: t.Optional(t.String({ description: "shield: the note's commitment; unshield: the change note's" })),
      leafIndex: t.Optional(t.Integer({ description: "shield: the note's leaf; unshield: the change note's" })),
      nullifierHash: t.Optional(t.String()),
      recipient: t.Optional(t.String()),
    },
    { description: "read from the pool's event in the mined UserOp's logs" },
  ),
});

export const LeavesParamsSchema = t.Object({ network: NetworkField });
export const LeavesQuerySchema = t.Object({
  from: t.Optional(t.String({ pattern: "^[0-9]{1,9}$", description: "first leaf index (default 0)" })),
});

export const LeavesResponseSchema = t.Object({
  network: t.String(),
  pool: t.String(),
  root: t.String({ description: "the root after `total` leaves (0 while empty)" }),
  total: t.Integer(),
  from: t.Integer(),
  leaves: t.Array(t.String(), { description: "commitments from index `from`, at most 1,000" }),
});

export const CircuitResponseSchema = t.Object({
  id: t.String({ description: "changes with every trusted setup" }),
  treeDepth: t.Integer(),
  publicSignals: t.Array(t.String()),
  wasm: t.String({ description: "URL path of the circuit's wasm" }),
  zkey: t.String({ description: "URL path of the proving key" }),
  verificationKey: t.String({ description: "URL path of the verification key (JSON)" }),
  sha256: t.Object({ wasm: t.String(), zkey: t.String(), verificationKey: t.String() }),
});
