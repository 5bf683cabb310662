import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
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
