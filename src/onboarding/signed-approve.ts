import {
  type Address,
  decodeFunctionData,
  encodeFunctionData,
  getAddress,
  type Hex,
  isAddressEqual,
  isHex,
  keccak256,
  parseAbi,
  parseTransaction,
  recoverTransactionAddress,
} from "viem";

/** ERC-20's approve; a token like BSC USDT returns nothing, which changes nothing of its calldata. */
export const approveAbi = parseAbi(["function approve(address spender, uint256 amount)"]);

/** A payer's signed, unbroadcast `approve(spender, amount)` transaction, decoded and its signer recovered. */
export type SignedApprove = {
  raw: Hex;
  hash: Hex;
  from: Address;
  chainId: number;
  nonce: number;
  token: Address;
  spender: Address;
  amount: bigint;
  gas: bigint;
  /** The most it may pay per gas: maxFeePerGas (EIP-1559), gasPrice (legacy). */
  maxFeePerGas: bigint;
};

/** Why a signed approve is refused: the code (x402's where it has one) and a message that says how to fix it. */
export type ApproveRefusal = { ok: false; code: ApproveRefusalCode; message: string };
export type ApproveRefusalCode =
  | "malformed"
  | "signer"
  | "chain"
  | "target"
  | "calldata"
  | "spender"
  | "amount"
  | "gas_limit"
  | "gas_too_low"
  | "signature"
  | "fee"
  | "fee_too_low"
  | "nonce"
  | "min_payment"
  | "already_funded"
  | "budget"
  | "payer_cap"
  | "payer_denied"
  | "payer_code"
  | "disabled"
  | "diverted"
  | "reverted"
  | "node_refused"
  | "abandoned"
  | "pending"
  | "unreadable";

export const refuseApprove = (code: ApproveRefusalCode, message: string): ApproveRefusal => ({
  ok: false,
  code,
  message,
});

/** The largest signed transaction read (an approve is ~150 bytes). */
const MAX_RAW_BYTES = 1024;

/**
 * Decodes a signed transaction and recovers its signer; refuses anything but a plain EIP-1559 or EIP-155 legacy
 * call of `approve` without value (no access list, no EIP-7702 authorization that could hand the account away).
 */
export async function readSignedApprove(raw: unknown): Promise<{ ok: true; approve: SignedApprove } | ApproveRefusal> {
  if (typeof raw !== "string" || !isHex(raw, { strict: true }) || raw.length > 2 + 2 * MAX_RAW_BYTES)
    return refuseApprove("malformed", "signedTransaction is not a hex signed transaction");
  let parsed: ReturnType<typeof parseTransaction>;
  let from: Address;
  try {
    parsed = parseTransaction(raw);
    from = await recoverTransactionAddress({ serializedTransaction: raw as never });
  } catch {
    return refuseApprove("malformed", "signedTransaction does not parse as a signed transaction");
  }
  const type = parsed.type;
  if (type !== "eip1559" && type !== "legacy")
    return refuseApprove("malformed", "the approve must be an EIP-1559 (or legacy) transaction");
  if (parsed.chainId === undefined) return refuseApprove("chain", "the approve must name its chain id (EIP-155)");
  if ((parsed.value ?? 0n) !== 0n) return refuseApprove("calldata", "the approve must carry no value");
  if ("accessList" in parsed && parsed.accessList && parsed.accessList.length > 0)
    return refuseApprove("calldata", "the approve must carry no access list");
  if (!parsed.to) return refuseApprove("target", "the approve must call the token");
  const data = parsed.data ?? "0x";
  let spender: Address;
  let amount: bigint;
  try {
    const decoded = decodeFunctionData({ abi: approveAbi, data });
    [spender, amount] = decoded.args;
  } catch {
    return refuseApprove("calldata", "the transaction's calldata is not approve(address,uint256)");
  }
  // Exactly the call's encoding: no trailing bytes a token might read differently.
  if (encodeFunctionData({ abi: approveAbi, functionName: "approve", args: [spender, amount] }) !== data.toLowerCase())
    return refuseApprove("calldata", "the transaction's calldata is not exactly approve(address,uint256)");
  const maxFeePerGas = type === "eip1559" ? parsed.maxFeePerGas : parsed.gasPrice;
  if (parsed.nonce === undefined || parsed.gas === undefined || maxFeePerGas === undefined)
    return refuseApprove("malformed", "the approve must set its nonce, gas limit and fee");
  return {
    ok: true,
    approve: {
      raw: raw.toLowerCase() as Hex,
      hash: keccak256(raw),
      from: getAddress(from),
      chainId: parsed.chainId,
      nonce: parsed.nonce,
      token: getAddress(parsed.to),
      spender: getAddress(spender),
      amount,
      gas: parsed.gas,
      maxFeePerGas,
    },
  };
}

/** What the payment needs of the approve, and the operator's caps. */
export type ApproveExpectation = {
  payer: Address;
  chainId: number;
  token: Address;
  spender: Address;
  /** The payment's amount: the approve must allow at least this. */
  amount: bigint;
  maxGas: bigint;
  maxFeePerGas: bigint;
};

/** The checks that need no chain read, in the order a client fixes them; null when all pass. */
export function approveMismatch(approve: SignedApprove, expected: ApproveExpectation): ApproveRefusal | null {
  if (!isAddressEqual(approve.from, expected.payer))
    return refuseApprove("signer", `the approve is signed by ${approve.from}, not the payer ${expected.payer}`);
  if (approve.chainId !== expected.chainId)
    return refuseApprove("chain", `the approve is for chain ${approve.chainId}, not ${expected.chainId}`);
  if (!isAddressEqual(approve.token, expected.token))
    return refuseApprove("target", `the approve calls ${approve.token}, not the token ${expected.token}`);
  if (!isAddressEqual(approve.spender, expected.spender))
    return refuseApprove("spender", `the approve's spender must be ${expected.spender}`);
  if (approve.amount < expected.amount)
    return refuseApprove("amount", `the approve allows ${approve.amount}, the payment needs ${expected.amount}`);
  if (approve.gas > expected.maxGas)
    return refuseApprove("gas_limit", `the approve's gas limit must be at most ${expected.maxGas}`);
  if (approve.maxFeePerGas > expected.maxFeePerGas)
    return refuseApprove("fee", `the approve's max fee per gas must be at most ${expected.maxFeePerGas} wei`);
  return null;
}

/** What the approve can cost its sender at most, which a node requires it to hold before accepting it. */
export const approveCost = (approve: SignedApprove): bigint => approve.gas * approve.maxFeePerGas;
