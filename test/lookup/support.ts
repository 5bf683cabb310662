// Real payments of every kind the lookup names by a computed id (an EOA payment, an x402 EIP-3009 payment on base,
// an x402 Permit2 payment on bsc, a wallet UserOp), each with the id its client computes from its signed body, and
// what the chain's receipt says of it: what the lookup's record must equal.
import { expect } from "bun:test";
import { paymentIdOf } from "@relay402/client";
import { type Address, getAddress, type Hex } from "viem";
import type { NetworkName } from "../../scripts/devnet/start";
import { PERMIT2 } from "../../src/x402/permit2";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer } from "../support/chain";
import { deployFundedWallet } from "../support/wallet";
import { settleBody, units, verifyBody } from "../wallets/support";
import { authorizationOf, baseRequirements, bscRequirements, permit2Buyer, permitOf, x402Buyer } from "../x402/support";

type Post = (path: string, body: unknown) => Promise<{ status: number; body: any }>;

/** A settled payment as its client knows it, and what the lookup must say of it. */
export type Settled = {
  label: string;
  network: NetworkName;
  paymentId: Hex;
  /** Its nonce space, for GET /payments?network&contract&payer&nonce (none for a UserOp). */
  nonceSpace?: { contract: Address; payer: Address; nonce: string };
  flow: string;
  payer: string;
  payee: string;
  token: string;
  amount: string;
  transaction: Hex;
};

/** An EOA payment through the relayer: its id from (chain id, relayer, payer, nonce). */
export async function settleEoa(post: Post, network: NetworkName, payee: Address): Promise<Settled> {
  const c = chainOf(network);
  const payer = await freshPayer(network);
  const value = 3n * 10n ** BigInt(c.token.decimals) + 7n;
  await approveRelayer(network, payer.key, value);
  const body = await signedPayment({ network, key: payer.key, to: payee, value });
  const { from, nonce } = body.paymentPayload.payload.authorization;
  const settled = await post("/settle", body);
  expect(settled.status).toBe(200);
  return {
    label: `${network} EOA`,
    network,
    paymentId: paymentIdOf({ chainId: c.info.chainId, contract: c.info.relayer, payer: from, nonce }),
    nonceSpace: { contract: c.info.relayer, payer: from, nonce },
    flow: "eoa",
    payer: from,
    payee,
    token: c.token.address,
    amount: value.toString(),
    transaction: settled.body.transaction,
  };
}

/** An x402 EIP-3009 payment on base: its id from (chain id, the token, payer, nonce). */
export async function settleEip3009(post: Post): Promise<Settled> {
  const c = chainOf("base");
  const requirements = baseRequirements(1_250_000n);
  const payment = await (await x402Buyer()).pay(requirements);
  const { authorization } = authorizationOf(payment);
  const settled = await post("/settle", { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements });
  expect(settled.body).toMatchObject({ success: true });
  const contract = requirements.asset as Address;
  return {
    label: "base x402 EIP-3009",
    network: "base",
    paymentId: paymentIdOf({
      chainId: c.info.chainId,
      contract,
      payer: authorization.from,
      nonce: authorization.nonce,
    }),
    nonceSpace: { contract, payer: authorization.from, nonce: authorization.nonce },
    flow: "x402",
    payer: authorization.from,
    payee: requirements.payTo,
    token: contract,
    amount: authorization.value,
    transaction: settled.body.transaction,
  };
}

/** An x402 Permit2 payment on bsc: its id from (chain id, Permit2, payer, nonce), a decimal nonce. */
export async function settlePermit2(post: Post): Promise<Settled> {
  const c = chainOf("bsc");
  const requirements = bscRequirements(2_000_000n);
  const payment = await (await permit2Buyer()).pay(requirements);
  const permit = permitOf(payment).permit2Authorization;
  const settled = await post("/settle", { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements });
  expect(settled.body).toMatchObject({ success: true });
  return {
    label: "bsc x402 Permit2",
    network: "bsc",
    paymentId: paymentIdOf({
      chainId: c.info.chainId,
      contract: PERMIT2,
      payer: permit.from,
      nonce: BigInt(permit.nonce),
    }),
    nonceSpace: { contract: PERMIT2, payer: permit.from, nonce: permit.nonce },
    flow: "x402",
    payer: permit.from,
    payee: requirements.payTo,
    token: c.token.address,
    amount: permit.permitted.amount,
    transaction: settled.body.transaction,
  };
}

/** A sponsored smart-wallet payment: its id is its userOpHash. */
export async function settleWallet(post: Post, network: NetworkName, payee: Address): Promise<Settled> {
  const c = chainOf(network);
  const { owner, wallet } = await deployFundedWallet(network, units(network, 100n));
  const verified = await post(
    "/wallet/verify",
    verifyBody(network, wallet, [{ to: payee, amount: units(network, 2n) }]),
  );
  expect(verified.status).toBe(200);
  const settled = await post("/wallet/settle", await settleBody(verified.body, owner));
  expect(settled.status).toBe(200);
  return {
    label: `${network} wallet UserOp`,
    network,
    paymentId: verified.body.userOpHash,
    flow: "smart-wallet",
    payer: wallet,
    payee,
    token: c.token.address,
    amount: verified.body.totalAmount,
    transaction: settled.body.txHash,
  };
}

/** The record the lookup must answer for a settled payment: its fields as paid, its figures as the receipt says. */
export async function expectedRecord(payment: Settled) {
  const receipt = await chainOf(payment.network).public.getTransactionReceipt({ hash: payment.transaction });
  expect(receipt.status).toBe("success");
  return {
    paymentId: payment.paymentId.toLowerCase(),
    status: "settled",
    flow: payment.flow,
    network: payment.network,
    // Every answer spells addresses in EIP-55 (src/chain/checksum-addresses.ts).
    payer: getAddress(payment.payer),
    payee: getAddress(payment.payee),
    payees: [getAddress(payment.payee)],
    token: getAddress(payment.token),
    amount: payment.amount,
    transaction: receipt.transactionHash,
    block: Number(receipt.blockNumber),
    gasUsed: receipt.gasUsed.toString(),
    effectiveGasPrice: receipt.effectiveGasPrice.toString(),
    failureReason: null,
  };
}
