import {
  authorizationTypes,
  PERMIT2_ADDRESS,
  permit2WitnessTypes,
  uptoPermit2WitnessTypes,
  x402ExactPermit2ProxyAddress,
  x402UptoPermit2ProxyAddress,
} from "@x402/evm";
import {
  type Address,
  decodeFunctionData,
  getAddress,
  type Hex,
  isAddress,
  isAddressEqual,
  parseTransaction,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  type TransactionSerialized,
} from "viem";
import { erc20Abi } from "../wire/abis.js";
import { permitSigner } from "../wire/eip2612-permit.js";

/**
 * What the agent reserved in its ledger for one x402 payment, in the terms a signed payload is checked in: the
 * token (with its EIP-712 name and version as the offer gives them), the chain (the agent's RPC's), the amount in
 * base units and the payee.
 */
export type ReservedPayment = {
  agent: Address;
  chainId: number;
  token: Address;
  domain: { name: string; version: string } | null;
  amount: bigint;
  to: Address;
};

/** One transfer a signed payload lets someone make, decoded and its signer recovered. */
export type SignedTransfer = {
  signer: Address;
  /** Who the payload says pays: it must be who signed. */
  from: Address;
  token: Address;
  amount: bigint;
  to: Address;
  /** Who may pull it (Permit2's spender), and who must be: x402's own proxy of the scheme. */
  spender?: { signed: Address; expected: Address };
};

type Fields = Record<string, unknown>;
const fieldsOf = (value: unknown): Fields | undefined =>
  typeof value === "object" && value !== null ? (value as Fields) : undefined;
const addressOf = (value: unknown): Address => {
  if (typeof value !== "string" || !isAddress(value)) throw new Error("an address field is not an address");
  return getAddress(value);
};
const uintOf = (value: unknown): bigint => {
  if (typeof value !== "string" || !/^\d+$/.test(value)) throw new Error("an amount field is not a decimal integer");
  return BigInt(value);
};
const hexOf = (value: unknown): Hex => {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]*$/.test(value)) throw new Error("a signature is not hex");
  return value as Hex;
};

/**
 * An EIP-3009 `authorization`: it carries no token, so the signature binds it: it is recovered over the reserved
 * token's domain on the agent's chain, and a payload signed for any other token or chain recovers to another address.
 */
async function eip3009Transfer(inner: Fields, reserved: ReservedPayment): Promise<SignedTransfer> {
  const authorization = fieldsOf(inner.authorization);
  if (!authorization) throw new Error("no authorization");
  if (!reserved.domain) throw new Error("the offer names no EIP-712 domain for its token");
  const message = {
    from: addressOf(authorization.from),
    to: addressOf(authorization.to),
    value: uintOf(authorization.value),
    validAfter: uintOf(authorization.validAfter),
    validBefore: uintOf(authorization.validBefore),
    nonce: hexOf(authorization.nonce),
  };
  const signer = await recoverTypedDataAddress({
    domain: { ...reserved.domain, chainId: reserved.chainId, verifyingContract: reserved.token },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
    signature: hexOf(inner.signature),
  });
  return { signer, from: message.from, token: reserved.token, amount: message.value, to: message.to };
}

/** A Permit2 witness transfer (`exact`'s witness: to, validAfter; `upto`'s adds the facilitator). */
async function permit2Transfer(inner: Fields, reserved: ReservedPayment, upto: boolean): Promise<SignedTransfer> {
  const permit = fieldsOf(inner.permit2Authorization);
  const permitted = fieldsOf(permit?.permitted);
  const witness = fieldsOf(permit?.witness);
  if (!permit || !permitted || !witness) throw new Error("no permit2Authorization");
  const message = {
    permitted: { token: addressOf(permitted.token), amount: uintOf(permitted.amount) },
    spender: addressOf(permit.spender),
    nonce: uintOf(permit.nonce),
    deadline: uintOf(permit.deadline),
    witness: upto
      ? {
          to: addressOf(witness.to),
          facilitator: addressOf(witness.facilitator),
          validAfter: uintOf(witness.validAfter),
        }
      : { to: addressOf(witness.to), validAfter: uintOf(witness.validAfter) },
  };
  const signer = await recoverTypedDataAddress({
    domain: { name: "Permit2", chainId: reserved.chainId, verifyingContract: PERMIT2_ADDRESS },
    types: upto ? uptoPermit2WitnessTypes : permit2WitnessTypes,
    primaryType: "PermitWitnessTransferFrom",
    message: message as never,
    signature: hexOf(inner.signature),
  });
  return {
    signer,
    // Permit2 pays from its signer; the field is what x402 names it.
    from: permit.from === undefined ? signer : addressOf(permit.from),
    token: message.permitted.token,
    amount: message.permitted.amount,
    to: message.witness.to,
    spender: {
      signed: message.spender,
      expected: getAddress(upto ? x402UptoPermit2ProxyAddress : x402ExactPermit2ProxyAddress),
    },
  };
}

/**
 * The transfers a scheme's signed `payload` lets be made. One decoder per scheme and shape, so that a scheme added
 * later (upto's witness is here; batch-settlement's deposits would be another entry) fits the same check.
 */
export async function signedTransfersOf(
  scheme: string,
  inner: Record<string, unknown>,
  reserved: ReservedPayment,
): Promise<SignedTransfer[]> {
  if (scheme === "exact" && "authorization" in inner) return [await eip3009Transfer(inner, reserved)];
  if (scheme === "exact" && "permit2Authorization" in inner) return [await permit2Transfer(inner, reserved, false)];
  if (scheme === "upto" && "permit2Authorization" in inner) return [await permit2Transfer(inner, reserved, true)];
  throw new Error(`a ${scheme} payload of this shape is not one the agent can check`);
}

/**
 * The signed approvals the payload's extensions carry (x402's gas sponsorings): an EIP-2612 permit or a signed
 * `approve` transaction, each of the reserved token, to Permit2, on the agent's chain, signed by the agent. An
 * extension without signed material (the merchant's own declaration, echoed) grants nothing.
 */
async function checkSignedExtensions(extensions: unknown, reserved: ReservedPayment): Promise<string | null> {
  const permit = fieldsOf(fieldsOf(fieldsOf(extensions)?.eip2612GasSponsoring)?.info);
  if (permit && "signature" in permit) {
    if (!reserved.domain) return "the offer names no EIP-712 domain for the permit's token";
    const spender = addressOf(permit.spender);
    const signer = await permitSigner(
      {
        token: reserved.token,
        owner: addressOf(permit.from),
        spender,
        value: uintOf(permit.amount),
        nonce: uintOf(permit.nonce),
        deadline: uintOf(permit.deadline),
        signature: hexOf(permit.signature),
      },
      reserved.chainId,
      reserved.domain,
    );
    if (!isAddressEqual(addressOf(permit.asset), reserved.token)) return "its EIP-2612 permit is of another token";
    if (!isAddressEqual(spender, PERMIT2_ADDRESS)) return "its EIP-2612 permit lets another spender than Permit2";
    if (!isAddressEqual(signer, reserved.agent) || !isAddressEqual(addressOf(permit.from), reserved.agent)) {
      return "its EIP-2612 permit is not the agent's, on this token and chain";
    }
  }
  const approval = fieldsOf(fieldsOf(fieldsOf(extensions)?.erc20ApprovalGasSponsoring)?.info);
  if (approval && "signedTransaction" in approval) {
    const raw = hexOf(approval.signedTransaction) as TransactionSerialized;
    const transaction = parseTransaction(raw);
    const from = await recoverTransactionAddress({ serializedTransaction: raw as never });
    if (transaction.chainId !== reserved.chainId) return "its signed approve is for another chain";
    if (!transaction.to || !isAddressEqual(transaction.to, reserved.token))
      return "its signed approve is of another token";
    if ((transaction.value ?? 0n) !== 0n) return "its signed approve sends native coin";
    const call = decodeFunctionData({ abi: erc20Abi, data: transaction.data ?? "0x" });
    if (call.functionName !== "approve" || !isAddressEqual(call.args[0] as Address, PERMIT2_ADDRESS)) {
      return "its signed transaction is not an approve of Permit2";
    }
    if (!isAddressEqual(from, reserved.agent)) return "its signed approve is not the agent's";
  }
  return null;
}

/**
 * Why a payment payload must not be sent, or null when every transfer it signs is the reserved one: signed by the
 * agent, of the reserved token, for exactly the reserved amount, to the reserved payee, through x402's own proxy,
 * and its extensions' signed approvals are the agent's of that token to Permit2 on that chain.
 */
export async function refusalOfSignedPayment(
  scheme: string,
  payment: { payload: Record<string, unknown>; extensions?: unknown },
  reserved: ReservedPayment,
): Promise<string | null> {
  try {
    const transfers = await signedTransfersOf(scheme, payment.payload, reserved);
    for (const transfer of transfers) {
      if (!isAddressEqual(transfer.signer, reserved.agent) || !isAddressEqual(transfer.from, reserved.agent)) {
        return "it is not signed by the agent for the reserved token on this chain";
      }
      if (!isAddressEqual(transfer.token, reserved.token)) return "it signs another token than the one reserved";
      if (transfer.amount !== reserved.amount) {
        return `it signs ${transfer.amount} base units where ${reserved.amount} were reserved`;
      }
      if (!isAddressEqual(transfer.to, reserved.to)) return "it pays another address than the one reserved";
      if (transfer.spender && !isAddressEqual(transfer.spender.signed, transfer.spender.expected)) {
        return "its Permit2 spender is not x402's proxy";
      }
    }
    return await checkSignedExtensions(payment.extensions, reserved);
  } catch (error) {
    return `it cannot be read: ${(error as Error).message}`;
  }
}
