import { unshieldMinimumFee } from "@relay402/client/wire/incognito/fees";
import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import {
  coordinateOutOfField,
  type PublicSignals,
  proofCallArgs,
  type SolidityProof,
  signalOutOfField,
  verifyUnshield as verifyProof,
} from "@relay402/client/wire/incognito/proof";
import { fieldToHex, MAX_AMOUNT_EXCLUSIVE, SNARK_SCALAR_FIELD } from "@relay402/client/wire/incognito/protocol";
import { type Address, encodeFunctionData, getAddress, type Hex, maxUint256 } from "viem";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import { type IssueUserOpDeps, issueUserOp, verifiedAnswer } from "../userops/issue-user-op";
import type { IncognitoNetwork } from "./incognito-network";
import { asPoolRefusal } from "./pool-reverts";
import {
  type IncognitoRequest,
  type IncognitoVerifyResponse,
  invalid,
  issueReserved,
  type ReserveDeps,
  required,
} from "./verify-incognito";

/** What settle needs to know about an issued unshield besides the UserOp. */
export type UnshieldContext = {
  type: "unshield";
  token: Address;
  withdrawAmount: string;
  feeAmount: string;
  recipient: Address;
  root: Hex;
  /** Lowercase 0x hex: looked up by the issued store's pendingSpend. */
  nullifierHash: Hex;
  changeCommitment: Hex;
};

export type UnshieldDeps = IssueUserOpDeps &
  ReserveDeps & {
    network: IncognitoNetwork;
    verificationKey: () => Promise<unknown>;
  };

const field = (data: IncognitoRequest["incognitoData"], name: "root" | "nullifierHash" | "changeCommitment") => {
  const value = BigInt(required(data, name));
  if (value >= SNARK_SCALAR_FIELD) throw invalid(name, "not a field element (≥ the BN254 scalar field)");
  return value;
};

const amount = (data: IncognitoRequest["incognitoData"], name: "withdrawAmount" | "fee") => {
  const value = BigInt(required(data, name));
  if (value >= MAX_AMOUNT_EXCLUSIVE) throw invalid(name, "must be below 2^128");
  return value;
};

function parseProof(data: IncognitoRequest["incognitoData"]): SolidityProof {
  const proof = required(data, "proof");
  const all = [...proof.a, ...proof.b.flat(), ...proof.c];
  if (all.some((value) => BigInt(value) > maxUint256)) throw invalid("proof", "a proof element exceeds uint256");
  // The pool's verifier refuses it; the off-chain check would not notice (it reduces modulo q).
  const outside = coordinateOutOfField(proof as SolidityProof);
  if (outside) throw invalid(`proof.${outside}`, "not a BN254 base field element (≥ q)");
  return proof as SolidityProof;
}

/**
 * Unshield: every public value checked before anything is built (fee, root, nullifier, then the proof off-chain
 * with the committed verification key), then a UserOp from `walletAddress` (any deployed wallet of our factory;
 * it spends nothing of its own) calling the pool's `unshield`. The proof binds recipient, fee and fee recipient,
 * so the service can neither redirect the payment nor raise its fee.
 */
export async function verifyUnshield(deps: UnshieldDeps, request: IncognitoRequest): Promise<IncognitoVerifyResponse> {
  const { userOps, pool } = deps.network;
  const runtime = userOps.runtime;
  const data = request.incognitoData;
  const token = getAddress(data.token);
  const tokenConfig = runtime.token(token);
  if (!tokenConfig) throw invalid("token", `token ${token} is not served on ${runtime.name}`);
  const withdrawAmount = amount(data, "withdrawAmount");
  const fee = amount(data, "fee");
  const recipient = getAddress(required(data, "recipient"));
  if (BigInt(recipient) === 0n) throw invalid("recipient", "recipient is the zero address");
  const root = field(data, "root");
  const nullifierHash = field(data, "nullifierHash");
  const changeCommitment = field(data, "changeCommitment");
  if (changeCommitment === 0n) throw invalid("changeCommitment", "the change commitment cannot be 0 (not a leaf)");
  const proof = parseProof(data);
  const minimumFee = unshieldMinimumFee(withdrawAmount, tokenConfig);
  if (fee < minimumFee) {
    throw invalid("fee", `fee ${fee} is below the minimum ${minimumFee}`, { minimumFee: minimumFee.toString() });
  }

  let state: { rootKnown: boolean; nullifierSpent: boolean };
  try {
    state = await pool.spendState(root, nullifierHash);
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to read the privacy pool", { reason: shortReason(error) });
  }
  if (!state.rootKnown) throw invalid("root", "not a root of the pool's recent history");
  if (state.nullifierSpent) throw invalid("nullifierHash", "this note was already unshielded");

  const feeRecipient = runtime.config.feeRecipient;
  const signals: PublicSignals = {
    root,
    nullifierHash,
    token: BigInt(token),
    withdrawAmount,
    recipient: BigInt(recipient),
    feeRecipient: BigInt(feeRecipient),
    fee,
    changeCommitment,
  };
  // Each is range-checked above (field elements, amounts, addresses); this is the circuit's own rule, kept here.
  const outsideSignal = signalOutOfField(signals);
  if (outsideSignal) throw invalid(outsideSignal, "not a BN254 scalar field element (≥ r)");
  if (!(await verifyProof(await deps.verificationKey(), signals, proof))) {
    throw invalid(
      "proof",
      `the proof does not verify for these public values (feeRecipient must be ${feeRecipient}, /config's)`,
    );
  }

  const context: UnshieldContext = {
    type: "unshield",
    token,
    withdrawAmount: withdrawAmount.toString(),
    feeAmount: fee.toString(),
    recipient,
    root: fieldToHex(root),
    nullifierHash: fieldToHex(nullifierHash),
    changeCommitment: fieldToHex(changeCommitment),
  };
  const call = {
    to: pool.address,
    data: encodeFunctionData({
      abi: privacyPoolAbi,
      functionName: "unshield",
      args: [
        proofCallArgs(proof),
        root,
        nullifierHash,
        token,
        withdrawAmount,
        recipient,
        feeRecipient,
        fee,
        changeCommitment,
      ],
    }),
  };
  const issued = await issueReserved(
    deps,
    runtime.name,
    { nullifierHash: context.nullifierHash, leaf: context.changeCommitment },
    (held) =>
      held.on === "nullifierHash"
        ? invalid("nullifierHash", "an unshield of this note was already issued and may still be settled", {
            userOpHash: held.userOpHash,
            expiresAt: held.expiresAt,
          })
        : invalid(
            "changeCommitment",
            "a UserOp inserting this change commitment was already issued (or settled): prove again with fresh change secrets",
            { userOpHash: held.userOpHash, expiresAt: held.expiresAt },
          ),
    (record) =>
      issueUserOp(deps, {
        network: userOps,
        sender: getAddress(request.walletAddress),
        spends: { token, amount: 0n },
        calls: [call],
        kind: "incognito",
        context,
        fields: { sender: "walletAddress", balance: "incognitoData.withdrawAmount", calls: "incognitoData" },
        record,
      }).catch((error: unknown) => {
        throw asPoolRefusal(error, {
          LeafAlreadyExists: {
            field: "changeCommitment",
            message: "the change note is already in the pool: prove again with fresh change secrets",
          },
          NullifierAlreadySpent: { field: "nullifierHash", message: "this note was already unshielded" },
          UnknownRoot: { field: "root", message: "not a root of the pool's recent history" },
          InvalidProof: { field: "proof", message: "the pool's verifier refuses the proof" },
        });
      }),
  );
  return verifiedAnswer(issued, context.feeAmount, (withdrawAmount + fee).toString());
}
