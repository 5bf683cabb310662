// The lanes vs-x402-sponsored.ts measures, and how each lane's payer signs its payment: x402 Permit2 payloads signed
// by @x402/evm's own client (the sponsoring extensions when the merchant declares them), and relay402's own EOA
// body through the relayer (its permit or its signed approve beside the authorization, as docs/payments.md has it).
import { erc20Abi } from "@relay402/client/wire/abis";
import { EIP2612_PERMIT_TYPES, eip2612Abi, permitDomain } from "@relay402/client/wire/eip2612-permit";
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { declareEip2612GasSponsoringExtension, declareErc20ApprovalGasSponsoringExtension } from "@x402/extensions";
import { type Address, type Chain, encodeFunctionData, type Hex, maxUint256, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { PERMIT2 } from "../../src/x402/permit2";
import { eoaPaymentBody } from "./eoa-payment-body";
import type { Side } from "./vs-x402-report";

/** The devnet's tokens the lanes pay in: TestUSDT (plain ERC-20, 18 decimals), TestPermitToken (EIP-2612 only). */
export type SponsoredTokens = { plain: Address; permit: Address };

/** TestPermitToken's EIP-712 domain (contracts/test-tokens/TestPermitToken.sol), which the permits are signed over. */
const PERMIT_TOKEN_DOMAIN = { name: "Permit USD", version: "1" };

export type Lane = {
  key: string;
  label: string;
  token: keyof SponsoredTokens;
  decimals: number;
  /** An x402 Permit2 payload, or relay402's own EOA body (relayer). */
  format: "x402" | "eoa";
  /** "allowed": one payer that granted the allowance itself; "new": a new key per payment, holding only the token. */
  payer: "allowed" | "new";
  /** How a new payer gets the allowance: its EIP-2612 permit, or its signed approve that the operator funds. */
  sponsoring?: "permit" | "approve";
  sides: Side[];
};

const both: Side[] = ["relay402", "reference"];
const relay402: Side[] = ["relay402"];
const USDT = { token: "plain", decimals: 18 } as const;
const PUSD = { token: "permit", decimals: 6 } as const;

export const LANES: Lane[] = [
  {
    key: "plain.usdt",
    label: "Permit2, allowance already there (USDT)",
    ...USDT,
    format: "x402",
    payer: "allowed",
    sides: both,
  },
  {
    key: "plain.pusd",
    label: "Permit2, allowance already there (PUSD)",
    ...PUSD,
    format: "x402",
    payer: "allowed",
    sides: both,
  },
  {
    key: "eip2612",
    label: "Permit2 + eip2612GasSponsoring, new payer (PUSD)",
    ...PUSD,
    format: "x402",
    payer: "new",
    sponsoring: "permit",
    sides: both,
  },
  {
    key: "erc20approval",
    label: "Permit2 + erc20ApprovalGasSponsoring, new payer with 0 native (USDT)",
    ...USDT,
    format: "x402",
    payer: "new",
    sponsoring: "approve",
    sides: relay402,
  },
  {
    key: "eoa.plain.pusd",
    label: "EOA body via the relayer, max allowance already there (PUSD)",
    ...PUSD,
    format: "eoa",
    payer: "allowed",
    sides: relay402,
  },
  {
    key: "eoa.permit",
    label: "EOA body + permit (transferWithAuthorizationWithPermit), new payer (PUSD)",
    ...PUSD,
    format: "eoa",
    payer: "new",
    sponsoring: "permit",
    sides: relay402,
  },
  {
    key: "eoa.plain.usdt",
    label: "EOA body via the relayer, max allowance already there (USDT)",
    ...USDT,
    format: "eoa",
    payer: "allowed",
    sides: relay402,
  },
  {
    key: "eoa.approve",
    label: "EOA body + funded approve, new payer with 0 native (USDT)",
    ...USDT,
    format: "eoa",
    payer: "new",
    sponsoring: "approve",
    sides: relay402,
  },
];

/** A /settle body; `signedApprove` when the payer's approve rides in it (its hash finds the approve's receipt). */
export type Body = { json: string; payer: Address; signedApprove?: Hex };

/** 0.3 token: above relay402's smallest payment a funded approve may onboard (0.1 token by default). */
export const paymentOf = (lane: Lane) => (3n * 10n ** BigInt(lane.decimals)) / 10n;

/** Who the lane's allowance goes to: Permit2 for x402's exact scheme, the relayer for relay402's own body. */
export const spenderOf = (lane: Lane, relayer: Address): Address => (lane.format === "x402" ? PERMIT2 : relayer);

const DECLARATIONS = {
  permit: declareEip2612GasSponsoringExtension(),
  approve: declareErc20ApprovalGasSponsoringExtension(),
};
const EXTENSION_KEYS = { permit: "eip2612GasSponsoring", approve: "erc20ApprovalGasSponsoring" } as const;

/** What signing the lanes' payments reads: the chain, its tokens, the merchant paid and the relayer approved. */
export type LaneSignerDeps = {
  chain: Chain;
  rpcUrl: string;
  publicClient: PublicClient;
  tokens: SponsoredTokens;
  merchant: Address;
  relayer: Address;
};

export function laneSigner(deps: LaneSignerDeps) {
  const { chain, rpcUrl, publicClient, tokens } = deps;

  /** A payload as @x402/evm's client signs it, reading the chain (allowance, nonces, fees) as a buyer's does. */
  async function x402Body(key: Hex, lane: Lane): Promise<Body> {
    const account = privateKeyToAccount(key);
    const client = registerExactEvmScheme(new x402Client(), {
      signer: account,
      schemeOptions: { [chain.id]: { rpcUrl } } as never,
    });
    client.setSpendControls({ allowedAssets: true }); // the devnet's tokens are not among x402's default assets
    const requirements: PaymentRequirements = {
      scheme: "exact",
      network: `eip155:${chain.id}`,
      asset: tokens[lane.token],
      amount: paymentOf(lane).toString(),
      payTo: deps.merchant,
      maxTimeoutSeconds: 600,
      extra: { assetTransferMethod: "permit2", ...(lane.token === "permit" ? PERMIT_TOKEN_DOMAIN : {}) },
    };
    const payload: PaymentPayload = await client.createPaymentPayload({
      x402Version: 2,
      resource: { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" },
      accepts: [requirements],
      ...(lane.sponsoring ? { extensions: DECLARATIONS[lane.sponsoring] } : {}),
    } as never);
    const extension = lane.sponsoring ? payload.extensions?.[EXTENSION_KEYS[lane.sponsoring]] : undefined;
    // A lane whose payload lacks its extension would measure the plain path under the sponsored label.
    if (lane.sponsoring && !extension) throw new Error(`${lane.key}: @x402/evm signed no ${lane.sponsoring}`);
    const signedApprove = (extension as { info?: { signedTransaction?: Hex } } | undefined)?.info?.signedTransaction;
    const json = JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
    return { json, payer: account.address, ...(signedApprove ? { signedApprove } : {}) };
  }

  /** relay402's EOA body, with the payer's permit or signed approve (70,000 gas, as x402's client signs) beside it. */
  async function eoaBody(key: Hex, lane: Lane): Promise<Body> {
    const account = privateKeyToAccount(key);
    const token = tokens[lane.token];
    const value = paymentOf(lane);
    const target = { network: "base" as const, chainId: chain.id, to: deps.merchant, value };
    const body = JSON.parse(await eoaPaymentBody(account, deps.relayer, token, target));
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    if (lane.sponsoring === "permit") {
      const nonce = await publicClient.readContract({
        address: token,
        abi: eip2612Abi,
        functionName: "nonces",
        args: [account.address],
      });
      const signature = await account.signTypedData({
        domain: permitDomain(token, chain.id, PERMIT_TOKEN_DOMAIN),
        types: EIP2612_PERMIT_TYPES,
        primaryType: "Permit",
        message: { owner: account.address, spender: deps.relayer, value, nonce, deadline },
      });
      body.paymentPayload.permit = { value: value.toString(), deadline: deadline.toString(), signature };
    }
    let signedApprove: Hex | undefined;
    if (lane.sponsoring === "approve") {
      const fees = await publicClient.estimateFeesPerGas();
      signedApprove = await account.signTransaction({
        type: "eip1559",
        chainId: chain.id,
        to: token,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [deps.relayer, maxUint256] }),
        nonce: await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" }),
        gas: 70_000n,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      body.paymentPayload.approval = { signedTransaction: signedApprove };
    }
    return { json: JSON.stringify(body), payer: account.address, ...(signedApprove ? { signedApprove } : {}) };
  }

  return (key: Hex, lane: Lane) => (lane.format === "x402" ? x402Body(key, lane) : eoaBody(key, lane));
}
