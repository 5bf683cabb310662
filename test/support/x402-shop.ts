// A merchant as x402's own middleware builds it: one item at /item behind @x402/hono's paymentMiddleware, priced in
// one asset, settled by the given facilitator (relay402, in the tests). Listening on a free port; stop() closes it.
import type { FacilitatorClient } from "@x402/core/server";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/hono";
import { Hono } from "hono";
import type { Address } from "viem";

export function x402Shop(options: {
  facilitator: FacilitatorClient;
  network: `eip155:${number}`;
  payTo: Address;
  asset: Address;
  amount: bigint;
  /** The asset's `extra`: its EIP-712 name and version, or `assetTransferMethod: "permit2"`. */
  extra: Record<string, unknown>;
  /** The route's declared x402 extensions (its 402 answers carry them), e.g. a gas sponsoring. */
  extensions?: Record<string, unknown>;
}) {
  const { facilitator, network, payTo, asset, amount, extra, extensions } = options;
  const shop = new Hono();
  shop.use(
    paymentMiddleware(
      {
        "GET /item": {
          accepts: {
            scheme: "exact",
            network,
            payTo,
            price: { asset, amount: amount.toString(), extra },
            maxTimeoutSeconds: 300,
          },
          description: "an item",
          mimeType: "text/plain",
          ...(extensions ? { extensions } : {}),
        },
      },
      new x402ResourceServer(facilitator).register(network, new ExactEvmScheme()),
    ),
  );
  shop.get("/item", (context) => context.text("the item"));
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: shop.fetch });
  return { itemUrl: `http://127.0.0.1:${server.port}/item`, stop: () => server.stop(true) };
}
