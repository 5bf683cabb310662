import { type Address, erc6492SignatureValidatorByteCode, type Hex, isAddressEqual, toFunctionSelector } from "viem";
import { verifyHash } from "viem/actions";
import { batchedCall, callBatcherOf } from "../chain/batched-call";
import type { NetworkRuntime } from "../chain/networks";
import type { PaymentRules } from "../settlement/payment-rules";
import { eip3009TokenAbi, transferWithAuthorizationDigest } from "./eip3009";
import type { X402Refusal } from "./reasons";
import { aggregate3Call, aggregate3Results, type Call } from "./verify-reads";
import type { X402Eip3009Payment } from "./wire";

/** `permitNeeded`: a Permit2 payment settles only with its EIP-2612 permit (the payer's allowance is short). */
export type Check = { ok: true; permitNeeded?: boolean } | { ok: false; refusal: X402Refusal; message: string };

/** The message of a payment in an asset the network does not take, with where to find those it does. */
export const assetNotAccepted = (network: NetworkRuntime, asset: Address) =>
  `${asset} is not an asset relay402 accepts on ${network.name}; GET /supported lists the assets it accepts`;

const refuse = (refusal: X402Refusal, message: string): Check => ({ ok: false, refusal, message });

/** The EIP-712 domain the payer signed under: the merchant's `extra`, else the token's own (ERC-5267). */
async function domainOf(network: NetworkRuntime, payment: X402Eip3009Payment) {
  if (payment.requirements.domain) return payment.requirements.domain;
  try {
    const [, name, version] = await network.client.readContract({
      address: payment.requirements.asset,
      abi: eip3009TokenAbi,
      functionName: "eip712Domain",
    });
    return { name, version };
  } catch {
    return null;
  }
}

const ethCall = (network: NetworkRuntime, to: Address | undefined, data: Hex) => batchedCall(network, to, data);
const AUTHORIZATION_STATE = toFunctionSelector("authorizationState(address,bytes32)");
const BALANCE_OF = toFunctionSelector("balanceOf(address)");
const addressWord = (address: Address) => address.slice(2).toLowerCase().padStart(64, "0");
const word = (value: bigint) => value.toString(16).padStart(64, "0");

/** The token's answer as one 32-byte word; anything else (no code at the address, say) is an error. */
function wordOf(result: Hex): bigint {
  if (typeof result !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(result)) throw new Error("not a 32-byte answer");
  return BigInt(result);
}

/** Whether the authorization's nonce is used or canceled, and the payer's balance: two calls, one JSON-RPC batch. */
async function tokenState(network: NetworkRuntime, token: Address, auth: X402Eip3009Payment["authorization"]) {
  const [used, balance] = await Promise.all([
    ethCall(network, token, `${AUTHORIZATION_STATE}${addressWord(auth.from)}${auth.nonce.slice(2)}`),
    ethCall(network, token, `${BALANCE_OF}${addressWord(auth.from)}`),
  ]);
  return { used: wordOf(used) !== 0n, balance: wordOf(balance) };
}

/**
 * The deployless ERC-6492 validator call of viem's verifyHash for a 65-byte signature: the validator's creation code,
 * then its constructor's arguments abi.encode(address signer, bytes32 hash, bytes signature) (check-payment.test.ts
 * compares it with viem's encodeDeployData).
 */
export const erc6492ValidatorCall = (from: Address, hash: Hex, signature: Hex): Hex =>
  `${erc6492SignatureValidatorByteCode}${addressWord(from)}${hash.slice(2)}${word(0x60n)}${word(65n)}${signature.slice(2)}${"0".repeat(62)}`;

/** The ecrecover precompile. */
const ECRECOVER = "0x0000000000000000000000000000000000000001";

/**
 * Whether ECDSA recovery of a 65-byte signature gives the payer, asked of the node's ecrecover precompile (hash, v as a
 * word, r, s; it answers nothing for a v other than 27 or 28) in the verify's batch. When it does, viem's verifyHash
 * answers valid whatever the validator finds (recovery is its last resort after the validator's false or revert), so
 * this is its verdict for far less: the validator made the node parse and run 3 KB of creation code on every verify,
 * as much of the node's CPU as a verify took of relay402's. Anything else (another signer, v of 0 or 1, no answer)
 * is false here and the validator and verifyHash decide, as before.
 */
async function recoversToPayer(network: NetworkRuntime, from: Address, hash: Hex, signature: Hex): Promise<boolean> {
  const v = signature.slice(130, 132);
  const recovered = await callBatcherOf(network)
    .call(ECRECOVER, `${hash}${"0".repeat(62)}${v}${signature.slice(2, 130)}` as Hex)
    .catch(() => null);
  return (
    typeof recovered === "string" &&
    recovered.length === 66 &&
    `0x${recovered.slice(26)}`.toLowerCase() === from.toLowerCase()
  );
}

/**
 * viem's verifyHash, as verifyTypedData runs it after hashing the typed data: the ERC-6492 validator's creation code
 * as an eth_call (ERC-1271 for a payer with code, else ECDSA), then ECDSA recovery. A 65-byte signature that recovers
 * to the payer is valid at once (recoversToPayer); else the validator's call data is built here (viem encoded the
 * validator's 6 KB of code and tested for wrapped signatures by throwing: a sixth of a verify's CPU). Any answer but
 * "valid" is asked again of verifyHash itself, so every refusal is its own verdict.
 */
async function signatureCheck(
  network: NetworkRuntime,
  from: Address,
  hash: Hex,
  signature: Hex,
  /** What the ecrecover precompile said already (chainReads), if it was asked. */
  recovered?: boolean,
): Promise<boolean> {
  if (BigInt(from) === 0n) return false; // as verifyHash: no signature is valid for the zero address
  if (/^0x[0-9a-fA-F]{130}$/.test(signature)) {
    if (recovered ?? (await recoversToPayer(network, from, hash, signature))) return true;
    const data = erc6492ValidatorCall(from, hash, signature);
    const answer = await ethCall(network, undefined, data).then(
      (value) => value as unknown,
      () => null,
    );
    if (typeof answer === "string" && /^0x0*1$/.test(answer)) return true;
  }
  return verifyHash(network.client, { address: from, hash, signature }).catch(() => false);
}

/**
 * The verify's chain reads in one eth_call, a Multicall3 aggregate3 (each call allowed to fail): the ecrecover
 * precompile on a 65-byte signature, the nonce's state and the payer's balance. One call instead of three is most
 * of what the node spends on a verify. Null when the answer is missing or malformed: the separate calls then decide.
 */
async function chainReads(
  network: NetworkRuntime,
  token: Address,
  auth: X402Eip3009Payment["authorization"],
  hash: Hex,
): Promise<{ recovered: boolean | undefined; used: boolean; balance: bigint } | null> {
  const { signature, from } = auth;
  const ecdsa = /^0x[0-9a-fA-F]{130}$/.test(signature) && BigInt(from) !== 0n;
  const calls: Call[] = [
    { target: token, data: `${AUTHORIZATION_STATE}${addressWord(from)}${auth.nonce.slice(2)}` },
    { target: token, data: `${BALANCE_OF}${addressWord(from)}` },
  ];
  if (ecdsa)
    calls.push({
      target: ECRECOVER,
      data: `${hash}${"0".repeat(62)}${signature.slice(130, 132)}${signature.slice(2, 130)}`,
    });
  try {
    const call = aggregate3Call(calls);
    const [used, balance, recovered] = aggregate3Results(await ethCall(network, call.to, call.data), calls.length);
    if (!used || !balance) return null;
    return {
      used: wordOf(used) !== 0n,
      balance: wordOf(balance),
      recovered: ecdsa
        ? typeof recovered === "string" &&
          recovered.length === 66 &&
          `0x${recovered.slice(26)}`.toLowerCase() === from.toLowerCase()
        : undefined,
    };
  } catch {
    return null;
  }
}

/**
 * The checks of x402's `exact` EIP-3009 facilitator, in its order, with relay402's own rules (minimum,
 * validBefore margin, denied payer, token enabled) among them; then the chain: nonce unused and balance.
 * Whether the transfer really goes through is the settle's simulation. The signature check (an eth_call: the
 * payer may be a contract) and the token's state are one eth_call (chainReads), one round trip; the refusals
 * still come in the order above.
 */
export async function checkX402Payment(
  network: NetworkRuntime,
  rules: PaymentRules,
  payment: X402Eip3009Payment,
  now: bigint,
): Promise<Check> {
  const { authorization: auth, requirements } = payment;
  const token = network.token(requirements.asset);
  if (!token) return refuse("assetNotAccepted", assetNotAccepted(network, requirements.asset));
  if (!token.eip3009)
    return refuse(
      "tokenNotEnabled",
      `${token.symbol} (${requirements.asset}) has no EIP-3009 on ${network.name}: pay it with Permit2 (extra.assetTransferMethod "permit2")`,
    );
  const domain = await domainOf(network, payment);
  if (!domain) return refuse("missingDomain", "paymentRequirements.extra needs the token's EIP-712 name and version");

  const hash = transferWithAuthorizationDigest(domain, network.config.chainId, requirements.asset, auth);
  const reads = chainReads(network, requirements.asset, auth, hash);
  const signatureValid = reads.then((read) =>
    signatureCheck(network, auth.from, hash, auth.signature, read?.recovered),
  );
  let refusal: Check | null;
  try {
    refusal = await ruleRefusal(rules, payment, now);
  } catch (error) {
    signatureValid.catch(() => undefined); // the database failed: the signature's verdict is not awaited
    throw error;
  }
  // A payment the rules refuse needs only the signature's verdict (it is answered first); else the token's state,
  // read with it. Settled here, so that a failed read is never an unhandled rejection.
  const state = refusal
    ? null
    : reads.then((read) =>
        read
          ? { ok: true as const, value: read }
          : tokenState(network, requirements.asset, auth).then(
              (value) => ({ ok: true as const, value }),
              () => ({ ok: false as const }),
            ),
      );
  if (!(await signatureValid)) return refuse("badSignature", "the signature does not recover to authorization.from");
  if (refusal) return refusal;

  const read = state ? await state : { ok: false as const };
  if (!read.ok) return refuse("unexpectedVerify", "could not read the token's state");
  if (read.value.used) return refuse("nonceUsed", "this authorization's nonce is already used or canceled");
  if (read.value.balance < auth.value) return refuse("insufficientBalance", "the payer's balance is below the value");
  return { ok: true };
}

/**
 * Whether every check that needs no chain read passes (the token served, the domain given by the merchant, the
 * rules after the signature's). Settle then lets the transaction's simulation stand for the chain checks: the token
 * itself checks the signature, the nonce, the window and the balance, and only when it would revert does
 * `checkX402Payment` run to say why (a payment refused here also gets its full answer, in x402's order).
 */
export async function passesLocalChecks(
  network: NetworkRuntime,
  rules: PaymentRules,
  payment: X402Eip3009Payment,
  now: bigint,
): Promise<boolean> {
  return (
    Boolean(network.token(payment.requirements.asset)?.eip3009) &&
    payment.requirements.domain !== null &&
    (await ruleRefusal(rules, payment, now)) === null
  );
}

/**
 * The checks after the signature's, in x402's order with relay402's rules among them; null when all pass. The
 * denied payer, last, is the only one that asks the database.
 */
async function ruleRefusal(rules: PaymentRules, payment: X402Eip3009Payment, now: bigint): Promise<Check | null> {
  const { authorization: auth, requirements } = payment;
  if (!isAddressEqual(auth.to, requirements.payTo)) return refuse("recipientMismatch", "authorization.to is not payTo");
  const margin = BigInt(rules.validBeforeMarginSeconds);
  if (auth.validBefore < now + margin)
    return refuse("validBeforeMargin", `validBefore must be at least ${margin} s after now`);
  if (auth.validAfter > now) return refuse("notYetValid", "the authorization is not valid yet");
  if (auth.value !== requirements.amount)
    return refuse("valueMismatch", "authorization.value is not the required amount");
  if (auth.value === 0n) return refuse("zeroValue", "value must be above zero");
  const minimum = rules.minPaymentValue(requirements.asset);
  if (auth.value < minimum)
    return refuse("belowMinimum", `value must be at least ${minimum} (the token's minimum payment)`);
  if (await rules.isPayerDenied(auth.from))
    return refuse("payerDenied", "this payer is refused after repeated on-chain reverts");
  return null;
}
