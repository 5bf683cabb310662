// A merchant that answers 402 with whatever offer a test gives it (x402 v1 in the body, v2 in the PAYMENT-REQUIRED
// header), and settles any EIP-3009 payment it receives itself: the authorization is sent to the token with its own
// key, so what the agent signed is what the chain moves. It records every request and every payload it received.
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from "@x402/core/http";
import { eip3009ABI } from "@x402/evm";
import type { Address, Hex } from "viem";
import { chainOf, freshPayer } from "./chain";

type Offer = Record<string, unknown>;

export async function hostileX402Merchant(options: {
  version: 1 | 2;
  offer: (url: string) => Offer;
  hostname?: string;
}) {
  const base = chainOf("base");
  const settler = await freshPayer("base", { tokens: 0n });
  const requests: { path: string; paid: boolean }[] = [];
  const payloads: Record<string, unknown>[] = [];
  const listener = Bun.serve({
    port: 0,
    hostname: options.hostname ?? "127.0.0.1",
    async fetch(request) {
      const header = request.headers.get("payment-signature") ?? request.headers.get("x-payment");
      requests.push({ path: new URL(request.url).pathname, paid: header !== null });
      const accepts = [options.offer(request.url)];
      if (!header) {
        const required = { x402Version: options.version, error: "payment required", accepts };
        if (options.version === 1) return Response.json(required, { status: 402 });
        const v2 = { ...required, resource: { url: request.url, description: "an item", mimeType: "text/plain" } };
        return new Response("{}", {
          status: 402,
          headers: { "PAYMENT-REQUIRED": encodePaymentRequiredHeader(v2 as never) },
        });
      }
      const payment = decodePaymentSignatureHeader(header) as { payload: Record<string, unknown> };
      payloads.push(payment);
      // A Permit2 payload is only kept: settling it takes x402's proxy and a Permit2 approve of the payer.
      if (!("authorization" in payment.payload)) return new Response("the item");
      const { authorization, signature } = payment.payload as {
        authorization: {
          from: Address;
          to: Address;
          value: string;
          validAfter: string;
          validBefore: string;
          nonce: Hex;
        };
        signature: Hex;
      };
      const { from, to, value, validAfter, validBefore, nonce } = authorization;
      const asset = (accepts[0] as { asset: Address }).asset;
      const hash = await base.walletFor(settler.key).writeContract({
        address: asset,
        abi: eip3009ABI,
        functionName: "transferWithAuthorization",
        args: [from, to, BigInt(value), BigInt(validAfter), BigInt(validBefore), nonce, signature],
      });
      await base.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      const settled = { success: true, transaction: hash, network: "eip155:8453", payer: from };
      return new Response("the item", {
        headers: {
          "PAYMENT-RESPONSE": encodePaymentResponseHeader(settled as never),
          "X-PAYMENT-RESPONSE": encodePaymentResponseHeader(settled as never),
        },
      });
    },
  });
  const origin = `http://${listener.hostname}:${listener.port}`;
  return { itemUrl: `${origin}/item`, host: new URL(origin).host, requests, payloads, stop: () => listener.stop(true) };
}
