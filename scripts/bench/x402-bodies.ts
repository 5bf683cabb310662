import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/**
 * x402 v2 /verify and /settle bodies for `requirements`, signed by @x402/evm's own exact client, the payers
 * taking turns (so a burst spreads over several payers' balances, as real buyers would).
 */
export function x402BodySigner(payerKeys: Hex[], requirements: PaymentRequirements) {
  const clients = payerKeys.map((key) => {
    const client = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(key) });
    client.setSpendControls({ allowedAssets: true }); // the devnet token is not one of x402's default assets
    return client;
  });
  const resource = { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" };
  let signed = 0;
  const x402Body = async () => {
    const client = clients[signed++ % clients.length] as x402Client;
    const paymentPayload = await client.createPaymentPayload({ x402Version: 2, resource, accepts: [requirements] });
    return JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements: requirements });
  };
  const x402Bodies = (count: number) => Promise.all(Array.from({ length: count }, x402Body));
  return { x402Body, x402Bodies };
}
