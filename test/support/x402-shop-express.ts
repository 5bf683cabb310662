// The shop of x402-shop.ts on Express behind @x402/express's paymentMiddleware, as a merchant following x402's
// Express guide (and examples/x402/merchant-express.mjs) runs it. Listening on a free port; stop() closes it.
import type { AddressInfo } from "node:net";
import { paymentMiddleware } from "@x402/express";
import express from "express";
import { shopRoutes, type X402ShopOptions } from "./x402-shop";

export async function x402ExpressShop(options: X402ShopOptions) {
  const { routes, server } = shopRoutes(options);
  const app = express();
  app.use(paymentMiddleware(routes, server));
  app.get("/item", (_request, response) => {
    response.type("text/plain").send("the item");
  });
  const listener = await new Promise<ReturnType<typeof app.listen>>((resolve, reject) => {
    const started = app.listen(0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(started)));
  });
  const { port } = listener.address() as AddressInfo;
  return {
    itemUrl: `http://127.0.0.1:${port}/item`,
    stop: () => {
      listener.closeAllConnections();
      listener.close();
    },
  };
}
