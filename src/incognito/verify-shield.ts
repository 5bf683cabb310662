import { erc20Abi } from "@relay402/client/wire/abis";
import type { Call } from "@relay402/client/wire/execution";
import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { MAX_AMOUNT_EXCLUSIVE, SNARK_SCALAR_FIELD } from "@relay402/client/wire/incognito/protocol";
import { walletPaymentFee } from "@relay402/client/wire/wallet-fee";
import { type Address, encodeFunctionData, getAddress } from "viem";
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

/** What settle needs to know about an issued shield besides the UserOp. */
export type ShieldContext = {
  type: "shield";
  token: Address;
  amount: string;
  feeAmount: string;
  totalAmount: string;
  commitment: string;
};

/**
 * Shield: the wallet approves the pool for `amount`, calls `shield(token, amount, precommitment)` (the pool pulls
 * the tokens and computes the commitment itself, so a note can never claim more than was paid) and pays the wallet
 * payment fee to the fee recipient, in one sponsored batch.
 */
/**
 * The note hashes pull in Poseidon's round constants and the Merkle tree code, about 13 MiB of a service's memory
 * that only shields use: loaded on the first shield, not at start.
 */
let noteHashes: Promise<typeof import("@relay402/client/wire/incognito/notes")> | undefined;
const loadNoteHashes = () => (noteHashes ??= import("@relay402/client/wire/incognito/notes"));

export async function verifyShield(
  deps: IssueUserOpDeps & ReserveDeps & { network: IncognitoNetwork },
  request: IncognitoRequest,
): Promise<IncognitoVerifyResponse> {
  const { userOps, pool } = deps.network;
  const runtime = userOps.runtime;
  const data = request.incognitoData;
  const token = getAddress(data.token);
  const tokenConfig = runtime.token(token);
  if (!tokenConfig) throw invalid("token", `token ${token} is not whitelisted on ${runtime.name}`);
  const amount = BigInt(required(data, "amount"));
  if (amount === 0n || amount >= MAX_AMOUNT_EXCLUSIVE) throw invalid("amount", "amount must be in [1, 2^128)");
  const precommitment = BigInt(required(data, "precommitment"));
  if (precommitment === 0n || precommitment >= SNARK_SCALAR_FIELD) {
    throw invalid("precommitment", "precommitment must be a non-zero field element");
  }
  const { commitmentOf, fieldToHex } = await loadNoteHashes();
  const commitment = commitmentOf(token, amount, precommitment);
  if (data.commitment !== undefined && BigInt(data.commitment) !== commitment) {
    throw invalid("commitment", "commitment is not Poseidon(token, amount, precommitment)");
  }
  let whitelisted: boolean;
  try {
    whitelisted = await pool.tokenWhitelisted(token);
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to read the token whitelist", { reason: shortReason(error) });
  }
  if (!whitelisted) throw invalid("token", `token ${token} is not whitelisted by the relayer on ${runtime.name}`);

  const feeAmount = walletPaymentFee(amount, tokenConfig);
  const totalAmount = amount + feeAmount;
  const calls: Call[] = [
    { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [pool.address, amount] }) },
    {
      to: pool.address,
      data: encodeFunctionData({ abi: privacyPoolAbi, functionName: "shield", args: [token, amount, precommitment] }),
    },
  ];
  const feeRecipient = runtime.config.feeRecipient;
  if (feeAmount > 0n) {
    calls.push({
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [feeRecipient, feeAmount] }),
    });
  }
  const context: ShieldContext = {
    type: "shield",
    token,
    amount: amount.toString(),
    feeAmount: feeAmount.toString(),
    totalAmount: totalAmount.toString(),
    commitment: fieldToHex(commitment),
  };
  const issued = await issueReserved(
    deps,
    runtime.name,
    { leaf: context.commitment },
    (held) =>
      invalid("precommitment", "a shield of this note was already issued (or settled): make it with fresh secrets", {
        userOpHash: held.userOpHash,
        expiresAt: held.expiresAt,
      }),
    (record) =>
      issueUserOp(deps, {
        network: userOps,
        sender: getAddress(request.walletAddress),
        spends: { token, amount: totalAmount },
        calls,
        kind: "incognito",
        context,
        fields: { sender: "walletAddress", balance: "incognitoData.amount", calls: "incognitoData" },
        record,
      }).catch((error: unknown) => {
        throw asPoolRefusal(error, {
          LeafAlreadyExists: {
            field: "precommitment",
            message: "this note (token, amount, precommitment) is already in the pool: make it with fresh secrets",
          },
          TokenNotWhitelisted: { field: "token", message: "the pool refuses this token" },
          AmountNotReceived: { field: "token", message: "the token delivered less than amount (a fee on transfer)" },
        });
      }),
  );
  return verifiedAnswer(issued, context.feeAmount, context.totalAmount);
}
