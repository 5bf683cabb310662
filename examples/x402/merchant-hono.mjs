// The same merchant on Hono (served under Node by @hono/node-server): GET /report costs PRICE (default 0.01) of
// USDC on Base (EIP-3009) or of USDT on BNB Chain (Permit2); relay402 verifies and settles through x402's own
// HTTPFacilitatorClient. The price is written from relay402's GET /supported (setup.mjs).
// Run under Node: RELAY402_URL=http://127.0.0.1:8402 PAY_TO=0x… node examples/x402/merchant-hono.mjs
// (NETWORKS=base,bsc by default; PORT 4021; MERCHANT_API_KEY if relay402 lifts its rate limit for you).
import { serve } from "@hono/node-server";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/hono";
import { Hono } from "hono";
import { merchantSettings, run } from "./setup.mjs";

run(async () => {
  const { facilitator, accepts, extensions, port, host } = await merchantSettings();
  const server = new x402ResourceServer(facilitator);
  for (const { network } of accepts) server.register(network, new ExactEvmScheme());

  const app = new Hono();
  app.use(
    paymentMiddleware(
      { "GET /report": { accepts, extensions, description: "today's report", mimeType: "application/json" } },
      server,
    ),
  );
  app.get("/report", (context) => context.json({ report: "paid content", servedBy: "hono" }));

  serve({ fetch: app.fetch, port, hostname: host }, (info) => {
    console.log(`merchant (hono) on http://${host}:${info.port}/report, selling:`);
    for (const entry of accepts) console.log(`  ${JSON.stringify(entry)}`);
  });
});
