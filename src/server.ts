import { checkWiring, UNTRACED_NOTE } from "./chain/wiring-check";
import { databaseOf } from "./config/database";
import type { Config } from "./config/schema";
import { openStores } from "./db/stores";
import { flowEnabledOn } from "./flow";
import { createApp } from "./http/app";
import { MAX_BODY_BYTES } from "./limits";
import { createLogger } from "./logger";
import { createServices, denyPolicyOf } from "./services";

/**
 * Starts the HTTP server (the Elysia app over the service container of `services.ts`) from a validated config;
 * returns a handle that stops both. Wrong wiring (an endpoint on another chain, a paymaster signer the contract
 * does not verify) is refused with a ConfigError before anything is opened or listened on; wrong swap wiring
 * (a router the relayer does not whitelist) only switches swaps off on its network.
 */
export async function startServer(
  config: Config,
  options: { silent?: boolean; logSink?: (line: string) => void } = {},
) {
  const wiring = await checkWiring(config);
  const logger = createLogger({ silent: options.silent, ...(options.logSink ? { sink: options.logSink } : {}) });
  const stores = await openStores(databaseOf(config), denyPolicyOf(config));
  const services = createServices(config, logger, wiring, stores);
  // The first key leases (several instances on PostgreSQL; nothing to take for one instance on SQLite).
  await services.networks.start();
  for (const network of services.networks.all()) {
    const served = services.flows.filter(({ flow }) => flowEnabledOn(flow, network.config));
    const off = wiring.unavailable[network.name] ?? {};
    logger.info({
      event: "flows_served",
      network: network.name,
      flows: served
        .map(({ flow }) => flow)
        .filter((flow) => !((flow.capability ?? flow.name) in off))
        .map((flow) => flow.name),
    });
  }
  for (const [network, flows] of Object.entries(wiring.unavailable)) {
    for (const [flow, reason] of Object.entries(flows ?? {}))
      logger.warn({ event: `${flow}_unavailable`, network, reason });
  }
  for (const [network, traces] of Object.entries(wiring.tracing ?? {})) {
    if (traces) logger.info({ event: "swap_revert_causes", network, revertCauses: "traced" });
    else logger.warn({ event: "swap_revert_causes", network, revertCauses: "untraced", note: UNTRACED_NOTE });
  }
  const app = createApp(services);
  app.listen({ hostname: config.host, port: config.port, maxRequestBodySize: MAX_BODY_BYTES * 2 });
  logger.info({ event: "started", port: app.server?.port, networks: services.networks.enabled, mode: config.mode });
  // Reconciliation sends too: a shutdown right after the start waits for it like for a settle.
  const { drain } = services;
  void drain.track(services.reconcile());
  let stopping: Promise<{ finished: boolean; left: number }> | undefined;
  return {
    app,
    services,
    url: `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${app.server?.port}`,
    async stop() {
      await app.stop();
      await services.stop();
    },
    /**
     * Graceful shutdown: new settles and claims answer 503 with Retry-After and /health says draining, while the
     * server keeps listening; settles and reconciliations in flight get `timeoutMs` to finish; then the server
     * closes, indexers and pollers stop, the executors stop waiting for receipts and the database closes. What
     * was still in flight stays sent in its record and is resumed by the next start's reconciliation.
     */
    shutdown(timeoutMs: number = config.shutdownTimeoutMs) {
      stopping ??= (async () => {
        drain.start();
        logger.info({ event: "shutdown_started", inFlight: drain.active, timeoutMs });
        const finished = await drain.idle(timeoutMs);
        const left = drain.active;
        if (!finished) logger.warn({ event: "shutdown_timeout", inFlight: left });
        // Answers already produced are still being written: close gracefully, and cut what is left after a second
        // (only requests past the timeout, whose records the next start resumes).
        const closed = app.stop(false).then(() => true);
        if (!(await Promise.race([closed, Bun.sleep(1_000).then(() => false)]))) await app.server?.stop(true);
        await services.stop();
        logger.info({ event: "shutdown_complete", finished, left });
        return { finished, left };
      })();
      return stopping;
    },
  };
}
