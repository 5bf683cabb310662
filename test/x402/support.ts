import { paymentIdOf } from "@relay402/client/wire/payment-id";
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { createPermit2ApprovalTx } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { eip3009TokenAbi, transferWithAuthorizationTypes } from "../../src/x402/eip3009";
import {
  nonceKey,
  PERMIT2,
  permit2Domain,
  permit2WitnessTypes,
  X402_EXACT_PERMIT2_PROXY,
  x402ExactPermit2ProxyAbi,
} from "../../src/x402/permit2";
import type { createX402SettlementStore } from "../../src/x402/settlement-store";
import type { X402Permit2Payment } from "../../src/x402/wire";
import { chainOf, freshPayer, randomAddress } from "../support/chain";
import { startTestService } from "../support/service";

export const MERCHANT_API_KEY = "merchant-key-for-tests-0001";

/** The test service listening on a real port, so that x402's own HTTP client can call it. */
export function listeningService(...args: Parameters<typeof startTestService>) {
  const service = startTestService(...args);
  service.app.listen({ port: 0, hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${service.app.server?.port}`;
  return {
    ...service,
    url,
    facilitator: (apiKey?: string) =>
      new HTTPFacilitatorClient({
        url,
        ...(apiKey
          ? {
              createAuthHeaders: async () => ({
                verify: { "x-api-key": apiKey },
                settle: { "x-api-key": apiKey },
                supported: { "x-api-key": apiKey },
              }),
            }
          : {}),
      }),
    stop: () => {
      service.app.stop(true);
      service.stop();
    },
  };
}

/** What a merchant asks for on base: `amount` of the devnet's USDC-like token (EIP-712 domain "USD Coin", "2"). */
export function baseRequirements(amount: bigint, overrides: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: "exact",
    network: "eip155:8453",
    asset: chainOf("base").token.address,
    amount: amount.toString(),
    payTo: randomAddress(),
    maxTimeoutSeconds: 300,
    extra: { name: "USD Coin", version: "2" },
    ...overrides,
  };
}

/** A funded buyer whose payments are signed by @x402/evm's own exact scheme. */
export async function x402Buyer(options: { tokens?: bigint } = {}) {
  const payer = await freshPayer("base", options);
  const client = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(payer.key as Hex) });
  // The devnet token is not one of x402's default assets (its address differs from Base's USDC).
  client.setSpendControls({ allowedAssets: true });
  const resource = { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" };
  return {
    key: payer.key as Hex,
    address: payer.address as Address,
    pay: (requirements: PaymentRequirements): Promise<PaymentPayload> =>
      client.createPaymentPayload({ x402Version: 2, resource, accepts: [requirements] }),
    /** The same payment in x402 v1's shapes (network "base", maxAmountRequired). */
    payV1: async (requirements: PaymentRequirements) => {
      const v1 = {
        scheme: "exact",
        network: "base",
        maxAmountRequired: requirements.amount,
        resource: resource.url,
        description: resource.description,
        mimeType: resource.mimeType,
        payTo: requirements.payTo,
        maxTimeoutSeconds: requirements.maxTimeoutSeconds,
        asset: requirements.asset,
        extra: requirements.extra,
      };
      const payload = await client.createPaymentPayload({ x402Version: 1, accepts: [v1] } as never);
      return { payload, requirements: v1 };
    },
  };
}

/** An EIP-3009 transfer signed by hand (what a payer can submit to the token itself, around any facilitator). */
export async function signTransfer(
  key: Hex,
  transfer: { to: Address; value: bigint; nonce: Hex; validBefore?: bigint },
) {
  const account = privateKeyToAccount(key);
  const c = chainOf("base");
  const message = {
    from: account.address,
    to: transfer.to,
    value: transfer.value,
    validAfter: 0n,
    validBefore: transfer.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 600),
    nonce: transfer.nonce,
  };
  const signature = await account.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: c.info.chainId, verifyingContract: c.token.address },
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  return { ...message, signature };
}

/** Submits a signed transfer straight to the token, outbidding the executors' fees (a front-runner). */
export function submitToToken(senderKey: Hex, transfer: Awaited<ReturnType<typeof signTransfer>>) {
  const c = chainOf("base");
  return c.walletFor(senderKey).writeContract({
    address: c.token.address,
    abi: eip3009TokenAbi,
    functionName: "transferWithAuthorization",
    args: [
      transfer.from,
      transfer.to,
      transfer.value,
      transfer.validAfter,
      transfer.validBefore,
      transfer.nonce,
      transfer.signature,
    ],
    gas: 200_000n,
    maxPriorityFeePerGas: 100n * 10n ** 9n,
    maxFeePerGas: 1000n * 10n ** 9n,
  });
}

/** The authorization inside an x402 v2 payment, typed. */
export const authorizationOf = (payment: PaymentPayload) =>
  payment.payload as {
    authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex };
    signature: Hex;
  };

/** What a merchant asks for on bsc: `amount` of the devnet's USDT-like token (no EIP-3009), paid with Permit2. */
export function bscRequirements(amount: bigint, overrides: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: "exact",
    network: "eip155:56",
    asset: chainOf("bsc").token.address,
    amount: amount.toString(),
    payTo: randomAddress(),
    maxTimeoutSeconds: 300,
    extra: { assetTransferMethod: "permit2" },
    ...overrides,
  };
}

/** Approves Permit2 for the token with the very transaction x402 clients build for it (unlimited). */
export async function approvePermit2(key: Hex) {
  const c = chainOf("bsc");
  const approval = createPermit2ApprovalTx(c.token.address);
  const hash = await c.walletFor(key).sendTransaction(approval);
  await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/** A funded buyer on bsc that has approved Permit2 (unless told not to); payments signed by @x402/evm. */
export async function permit2Buyer(options: { tokens?: bigint; approve?: boolean } = {}) {
  const payer = await freshPayer("bsc", options);
  if (options.approve !== false) await approvePermit2(payer.key);
  const client = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(payer.key as Hex) });
  client.setSpendControls({ allowedAssets: true });
  const resource = { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" };
  return {
    key: payer.key as Hex,
    address: payer.address as Address,
    pay: (requirements: PaymentRequirements): Promise<PaymentPayload> =>
      client.createPaymentPayload({ x402Version: 2, resource, accepts: [requirements] }),
  };
}

type Permit2Authorization = {
  from: Address;
  permitted: { token: Address; amount: string };
  spender: Address;
  nonce: string;
  deadline: string;
  witness: { to: Address; validAfter: string };
};

/** The Permit2 authorization inside an x402 v2 payment, typed. */
export const permitOf = (payment: PaymentPayload) =>
  payment.payload as { permit2Authorization: Permit2Authorization; signature: Hex };

/** A payment with its permit2Authorization changed after signing (the signature kept). */
export const tamperedPermit = (
  payment: PaymentPayload,
  change: (permit: Permit2Authorization) => Permit2Authorization,
): PaymentPayload => {
  const { permit2Authorization, signature } = permitOf(payment);
  return { ...payment, payload: { permit2Authorization: change(permit2Authorization), signature } };
};

/** A Permit2 transfer signed by hand, for x402's proxy: what a payer can also submit around any facilitator. */
export async function signPermit(
  key: Hex,
  permit: { to: Address; amount: bigint; nonce: bigint; deadline?: bigint },
): Promise<{ permit2Authorization: Permit2Authorization; signature: Hex }> {
  const c = chainOf("bsc");
  const account = privateKeyToAccount(key);
  const deadline = permit.deadline ?? BigInt(Math.floor(Date.now() / 1000) + 600);
  const signature = await account.signTypedData({
    domain: permit2Domain(c.info.chainId),
    types: permit2WitnessTypes,
    primaryType: "PermitWitnessTransferFrom",
    message: {
      permitted: { token: c.token.address, amount: permit.amount },
      spender: X402_EXACT_PERMIT2_PROXY,
      nonce: permit.nonce,
      deadline,
      witness: { to: permit.to, validAfter: 0n },
    },
  });
  return {
    permit2Authorization: {
      from: account.address,
      permitted: { token: c.token.address, amount: permit.amount.toString() },
      spender: X402_EXACT_PERMIT2_PROXY,
      nonce: permit.nonce.toString(),
      deadline: deadline.toString(),
      witness: { to: permit.to, validAfter: "0" },
    },
    signature,
  };
}

/** Submits a signed permit straight to x402's proxy, outbidding the executors' fees (a front-runner). */
export function submitToProxy(senderKey: Hex, signed: { permit2Authorization: Permit2Authorization; signature: Hex }) {
  const c = chainOf("bsc");
  const p = signed.permit2Authorization;
  return c.walletFor(senderKey).writeContract({
    address: X402_EXACT_PERMIT2_PROXY,
    abi: x402ExactPermit2ProxyAbi,
    functionName: "settle",
    args: [
      {
        permitted: { token: p.permitted.token, amount: BigInt(p.permitted.amount) },
        nonce: BigInt(p.nonce),
        deadline: BigInt(p.deadline),
      },
      p.from,
      { to: p.witness.to, validAfter: BigInt(p.witness.validAfter) },
      signed.signature,
    ],
    gas: 300_000n,
    maxPriorityFeePerGas: 100n * 10n ** 9n,
    maxFeePerGas: 1000n * 10n ** 9n,
  });
}

/**
 * A buyer on x402's own fetch wrapper (`@x402/fetch`, v1 and v2 schemes of @x402/evm) with a fresh payer on
 * `network`; on bsc it approves Permit2 first, as x402 clients expect. `sent` keeps the headers of every request.
 */
export async function fetchBuyer(network: "bsc" | "base", options: { tokens?: bigint } = {}) {
  const payer = await freshPayer(network, options);
  if (network === "bsc") await approvePermit2(payer.key as Hex);
  const client = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(payer.key as Hex) });
  client.setSpendControls({ allowedAssets: true }); // the devnet tokens are not among x402's default assets
  const sent: Headers[] = [];
  const recording = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    sent.push(new Headers(input instanceof Request ? input.headers : init?.headers));
    return fetch(input, init);
  }) as typeof fetch;
  return { pay: wrapFetchWithPayment(recording, client), sent, address: payer.address as Address };
}

/** The payment headers (v2 PAYMENT-SIGNATURE or v1 X-PAYMENT) of a request, to replay them. */
export const paymentHeaders = (headers: Headers) =>
  Object.fromEntries([...headers].filter(([name]) => /payment|x-payment/i.test(name)));

/**
 * The x402 settlement record a Permit2 payment claims before anything is sent, written straight into the store as a
 * process that crashed right after its claim would have left it (the restart tests).
 */
export function claimPermit2Record(
  store: ReturnType<typeof createX402SettlementStore>,
  network: "bsc" | "base",
  permit: X402Permit2Payment["permit"],
) {
  return store.claim({
    network,
    contract: PERMIT2,
    token: permit.token,
    payer: permit.from,
    nonce: nonceKey(permit.nonce),
    recipient: permit.to,
    amount: permit.amount.toString(),
    validAfter: Number(permit.validAfter),
    validBefore: Number(permit.deadline),
    signature: permit.signature,
    paymentId: paymentIdOf({
      chainId: chainOf(network).info.chainId,
      contract: PERMIT2,
      payer: permit.from,
      nonce: nonceKey(permit.nonce),
    }),
  });
}
