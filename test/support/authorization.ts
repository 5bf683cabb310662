import { relayerAbi } from "@relay402/client/wire/abis";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "@relay402/client/wire/transfer-typed-data";
import { type Address, type Hex, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { approveRelayer, chainOf, freshPayer, randomAddress } from "./chain";

export { TRANSFER_WITH_AUTHORIZATION_TYPES };

export type SignOptions = {
  network: NetworkName;
  key: Hex;
  to: Address;
  value: bigint;
  token?: Address;
  validAfter?: number;
  validBefore?: number;
  nonce?: Hex;
  /** Sign as someone else than `from` (for signer ≠ from). */
  signerKey?: Hex;
  /** A payer other than `key`'s address (a contract wallet); `key` (or `signerKey`) signs for it. */
  from?: Address;
  /** Another relayer: its EIP-712 domain is signed, and it is the body's relayerContract. */
  relayer?: Address;
};

/** Builds the /verify and /settle body exactly as a client would: EIP-712 over the relayer's domain. */
export async function signedPayment(options: SignOptions) {
  const c = chainOf(options.network);
  const from = options.from ?? privateKeyToAccount(options.key).address;
  const now = Math.floor(Date.now() / 1000);
  const message = {
    token: options.token ?? c.token.address,
    from,
    to: options.to,
    value: options.value,
    validAfter: BigInt(options.validAfter ?? now - 60),
    validBefore: BigInt(options.validBefore ?? now + 3600),
    nonce: options.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature = await privateKeyToAccount(options.signerKey ?? options.key).signTypedData({
    domain: {
      name: "relay402",
      version: "1",
      chainId: c.info.chainId,
      verifyingContract: options.relayer ?? c.info.relayer,
    },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message,
  });
  return {
    paymentPayload: {
      token: message.token,
      payload: {
        authorization: {
          from,
          to: options.to,
          value: options.value.toString(),
          validAfter: Number(message.validAfter),
          validBefore: Number(message.validBefore),
          nonce: message.nonce,
        },
        signature,
      },
    },
    paymentRequirements: { network: options.network, relayerContract: options.relayer ?? c.info.relayer },
  };
}

type Payer = Awaited<ReturnType<typeof freshPayer>>;

/**
 * A relay402 payment ready to settle: a fresh payer that approved the relayer for `allowance` (1000 tokens unless
 * said), or `payer` as it is, signs `value` to a new address; with the payment's id (chain id, relayer, payer, nonce).
 */
export async function readyPayment(
  network: NetworkName,
  value: bigint,
  options: { allowance?: bigint; payer?: Payer } = {},
) {
  const c = chainOf(network);
  let payer = options.payer;
  if (!payer) {
    payer = await freshPayer(network);
    await approveRelayer(network, payer.key, options.allowance ?? 1000n * 10n ** BigInt(c.token.decimals));
  }
  const to = randomAddress();
  const body = await signedPayment({ network, key: payer.key, to, value });
  const nonce = body.paymentPayload.payload.authorization.nonce as Hex;
  const paymentId = paymentIdOf({ chainId: c.info.chainId, contract: c.info.relayer, payer: payer.address, nonce });
  return { payer, to, body, paymentId };
}

/** The Relayer.transferWithAuthorization arguments of a signed body, for submitting it without the service. */
export function transferArgs(body: Awaited<ReturnType<typeof signedPayment>>) {
  const a = body.paymentPayload.payload.authorization;
  return [
    body.paymentPayload.token,
    a.from,
    a.to,
    BigInt(a.value),
    BigInt(a.validAfter),
    BigInt(a.validBefore),
    a.nonce as Hex,
    body.paymentPayload.payload.signature,
  ] as const;
}

/**
 * Submits a signed body straight to the relayer, as anyone may, with a tip that puts it ahead of the service's
 * own transaction in the next block (a front-run).
 */
export function submitAhead(key: Hex, body: Awaited<ReturnType<typeof signedPayment>>) {
  const c = chainOf(body.paymentRequirements.network);
  return c.walletFor(key).writeContract({
    address: c.info.relayer,
    abi: relayerAbi,
    functionName: "transferWithAuthorization",
    args: transferArgs(body),
    gas: 200_000n,
    maxPriorityFeePerGas: 100n * 10n ** 9n,
    maxFeePerGas: 1000n * 10n ** 9n,
  });
}
