// A merchant as x402's own middleware builds it: one item at /item behind @x402/hono's paymentMiddleware, priced in
// one asset, settled by the given facilitator (relay402, in the tests). Listening on a free port; stop() closes it.
// The same shop on Express: x402-shop-express.ts.
import type { FacilitatorClient } from "@x402/core/server";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/hono";
import { Hono } from "hono";
import type { Address } from "viem";

export type X402ShopOptions = {
  facilitator: FacilitatorClient;
  network: `eip155:${number}`;
  payTo: Address;
  asset: Address;
  amount: bigint;
  /** The asset's `extra`: its EIP-712 name and version, or `assetTransferMethod: "permit2"`. */
  extra: Record<string, unknown>;
  /** The route's declared x402 extensions (its 402 answers carry them), e.g. a gas sponsoring. */
  extensions?: Record<string, unknown>;
};

/** The shop's one route as x402's middlewares (Hono's, Express's) take it, and its resource server. */
export function shopRoutes(options: X402ShopOptions) {
  const { facilitator, network, payTo, asset, amount, extra, extensions } = options;
  const routes = {
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
  };
  return { routes, server: new x402ResourceServer(facilitator).register(network, new ExactEvmScheme()) };
}

export function x402Shop(options: X402ShopOptions) {
  const { routes, server } = shopRoutes(options);
  const shop = new Hono();
  shop.use(paymentMiddleware(routes, server));
  shop.get("/item", (context) => context.text("the item"));
  const listener = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: shop.fetch });
  return { itemUrl: `http://127.0.0.1:${listener.port}/item`, stop: () => listener.stop(true) };
}
