import { checkWiring } from "./chain/wiring-check";
import type { Config } from "./config/schema";
import { createApp } from "./http/app";
import { MAX_BODY_BYTES } from "./limits";
import { createLogger } from "./logger";
import { reconcileSettlements } from "./payments/reconcile-settlements";
import { createServices } from "./services";

/**
 * Starts the HTTP server (the Elysia app over the service container of `services.ts`) from a validated config;
 * returns a handle that stops both. Wrong wiring (an endpoint on another chain, a paymaster signer the contract
 * does not verify) is refused with a ConfigError before anything is opened or listened on; wrong swap wiring
 * (a router the relayer does not whitelist) only switches swaps off on its network.
 */
export async function startServer(config: Config, options: { silent?: boolean } = {}) {
  const wiring = await checkWiring(config);
  const logger = createLogger({ silent: options.silent });
  const services = createServices(config, logger, wiring);
  for (const [network, reason] of Object.entries(wiring.swapUnavailable)) {
    logger.warn({ event: "swaps_unavailable", network, reason });
  }
  const app = createApp(services);
  app.listen({ hostname: config.host, port: config.port, maxRequestBodySize: MAX_BODY_BYTES * 2 });
  logger.info({ event: "started", port: app.server?.port, networks: services.networks.enabled, mode: config.mode });
  void reconcileSettlements(services);
  void services.x402.reconcile();
  void services.swaps.reconcile();
  return {
    app,
    services,
    url: `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${app.server?.port}`,
    async stop() {
      await app.stop();
      services.stop();
    },
  };
}
