// Payers who hold only a plain token (no EIP-3009, no EIP-2612: the devnet's TestUSDT, like BSC USDT) and no native
// coins, and the service that funds their approves. TestUSDT is bsc's payment token and, deployed at the same
// CREATE2 address, one of base's tokens too (the devnet whitelists every test token on both networks).
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { type Address, encodeFunctionData, type Hex, maxUint256, parseAbi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { approveAbi } from "../../src/onboarding/signed-approve";
import { ERC20_APPROVAL_GAS_SPONSORING } from "../../src/x402/extensions";
import { PERMIT2 } from "../../src/x402/permit2";
import { chainOf, freshPayer, randomAddress } from "../support/chain";

export type Net = "bsc" | "base";
export const CAIP2: Record<Net, `eip155:${number}`> = { bsc: "eip155:56", base: "eip155:8453" };

/** The devnet's TestUSDT: bsc's payment token, deployed at the same address on base. */
export const plainToken = (): Address => {
  const bsc = chainOf("bsc").info.tokens.USDT;
  if (bsc?.kind !== "plain" || chainOf("base").info.tokens.USDT?.address !== bsc.address)
    throw new Error("the devnet manifest lacks the plain TestUSDT on both networks");
  return bsc.address;
};

/** What a merchant declares in its 402 to offer the extension (@x402/extensions' declaration, its info). */
export const SPONSORING_DECLARATION = {
  [ERC20_APPROVAL_GAS_SPONSORING]: {
    info: {
      description: "The facilitator broadcasts a pre-signed ERC-20 approve() to grant Permit2 allowance.",
      version: "1",
    },
    schema: {},
  },
};

const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);

/** Mints `amount` of a devnet test token (public mint) to `to`, sent by a throwaway minter (`to`'s nonce stays). */
export async function mintTo(network: Net, token: Address, to: Address, amount: bigint) {
  const c = chainOf(network);
  const minter = await freshPayer(network, { tokens: 0n });
  const hash = await c.walletFor(minter.key).writeContract({
    address: token,
    abi: mintAbi,
    functionName: "mint",
    args: [to, amount],
  });
  await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/**
 * A fresh key holding `tokens` of `token` (TestUSDT unless named) on `network` and not one wei of native coin
 * (nonce 0: it never sent anything).
 */
export async function tokenOnlyPayer(network: Net, tokens = 100n * 10n ** 18n, token: Address = plainToken()) {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  await mintTo(network, token, address, tokens);
  return { key, address };
}

/** The payer's x402 client: @x402/evm's exact scheme reading the chain through the devnet's RPC (allowances, permit and
 * approve nonces, fees), as a wallet-less buyer's scheme does with `rpcUrl`. */
export function x402ClientOf(key: Hex) {
  const client = registerExactEvmScheme(new x402Client(), {
    signer: privateKeyToAccount(key),
    schemeOptions: {
      56: { rpcUrl: chainOf("bsc").info.rpcUrl },
      8453: { rpcUrl: chainOf("base").info.rpcUrl },
    },
  });
  client.setSpendControls({ allowedAssets: true }); // the devnet token is not among x402's default assets
  return client;
}

/**
 * The payer's x402 client whose signer reads allowances and nonces from `network` but cannot estimate fees (no
 * `estimateFeesPerGas`, no `rpcUrl` to fill it in): @x402/evm then signs its approve at its defaults, 1 gwei.
 */
export function x402ClientWithoutFeeEstimates(key: Hex, network: Net) {
  const chain = chainOf(network).public;
  const reader = {
    readContract: (args: Parameters<typeof chain.readContract>[0]) => chain.readContract(args),
    getTransactionCount: (args: { address: Address }) => chain.getTransactionCount(args),
  };
  const signer = toClientEvmSigner(privateKeyToAccount(key), reader as never);
  if (signer.estimateFeesPerGas) throw new Error("the signer can estimate fees");
  const client = registerExactEvmScheme(new x402Client(), { signer });
  client.setSpendControls({ allowedAssets: true });
  return client;
}

/** @x402/fetch with the payer's client (x402ClientOf's unless given); `sent` keeps every request's headers. */
export function fetchPayer(key: Hex, client: x402Client = x402ClientOf(key)) {
  const sent: Headers[] = [];
  const recording = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    sent.push(new Headers(input instanceof Request ? input.headers : init?.headers));
    return fetch(input, init);
  }) as typeof fetch;
  return { pay: wrapFetchWithPayment(recording, client), sent };
}

/** The x402 v2 payload in a PAYMENT-SIGNATURE header. */
export const payloadOfHeaders = (headers: Headers): PaymentPayload =>
  JSON.parse(Buffer.from(headers.get("payment-signature") ?? "", "base64").toString("utf8"));

/** The signed approve of a payload's extension. */
export const signedApproveOf = (payload: PaymentPayload): Hex =>
  (payload.extensions?.[ERC20_APPROVAL_GAS_SPONSORING] as { info: { signedTransaction: Hex } } | undefined)?.info
    .signedTransaction ?? "0x";

const minimum = (a: bigint, b: bigint) => (a < b ? a : b);

/** A merchant's Permit2 requirements in TestUSDT on `network`. */
export function plainRequirements(network: Net, amount: bigint, payTo: Address = randomAddress()): PaymentRequirements {
  return {
    scheme: "exact",
    network: CAIP2[network],
    asset: plainToken(),
    amount: amount.toString(),
    payTo,
    maxTimeoutSeconds: 300,
    extra: { assetTransferMethod: "permit2" },
  };
}

/** The payer's Permit2 payment, signed by @x402/evm without the extension (none offered). */
export async function permit2Payment(key: Hex, requirements: PaymentRequirements): Promise<PaymentPayload> {
  const resource = { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" };
  return x402ClientOf(key).createPaymentPayload({ x402Version: 2, resource, accepts: [requirements] });
}

/** An approve signed by the payer, by default what x402's client signs (Permit2, MaxUint256, 70k gas), with changes. */
export async function signApprove(
  key: Hex,
  network: Net,
  change: Partial<{
    spender: Address;
    amount: bigint;
    chainId: number;
    nonce: number;
    gas: bigint;
    maxFeePerGas: bigint;
    to: Address;
  }> = {},
): Promise<Hex> {
  const c = chainOf(network);
  const account = privateKeyToAccount(key);
  const fees = await c.public.estimateFeesPerGas();
  return account.signTransaction({
    type: "eip1559",
    chainId: change.chainId ?? c.info.chainId,
    to: change.to ?? plainToken(),
    data: encodeFunctionData({
      abi: approveAbi,
      functionName: "approve",
      args: [change.spender ?? PERMIT2, change.amount ?? maxUint256],
    }),
    nonce: change.nonce ?? (await c.public.getTransactionCount({ address: account.address, blockTag: "pending" })),
    gas: change.gas ?? 70_000n,
    maxFeePerGas: change.maxFeePerGas ?? fees.maxFeePerGas,
    maxPriorityFeePerGas: minimum(fees.maxPriorityFeePerGas, change.maxFeePerGas ?? fees.maxFeePerGas),
  });
}

/** The body of /settle for a payment carrying the extension with this signed approve. */
export function sponsoredBody(payment: PaymentPayload, requirements: PaymentRequirements, signedTransaction: Hex) {
  const from = (payment.payload as { permit2Authorization: { from: Address } }).permit2Authorization.from;
  return {
    x402Version: 2,
    paymentPayload: {
      ...payment,
      extensions: {
        [ERC20_APPROVAL_GAS_SPONSORING]: {
          info: {
            from,
            asset: requirements.asset,
            spender: PERMIT2,
            amount: maxUint256.toString(),
            signedTransaction,
            version: "1",
          },
        },
      },
    },
    paymentRequirements: requirements,
  };
}

export const nativeBalance = (network: Net, address: Address) => chainOf(network).public.getBalance({ address });
