// The service's entry point (`bun run start`, the compiled binary): config from file + environment.
import "./production-env";
import { ConfigError, loadConfig } from "./config/load";
import { DatabaseUnavailableError } from "./db/stores";
import { startServer } from "./server";

try {
  const server = await startServer(loadConfig());
  // SIGTERM or SIGINT: a graceful shutdown (server.ts) that ends in exit 0; a second signal while it drains exits
  // at once (what was in flight is resumed by the next start, from its records).
  let signalled = false;
  const shutdown = async (signal: string) => {
    if (signalled) {
      server.services.logger.warn({ event: "shutdown_forced", signal });
      process.exit(1);
    }
    signalled = true;
    server.services.logger.info({ event: "shutdown_signal", signal });
    await server.shutdown();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
} catch (error) {
  if (error instanceof ConfigError || error instanceof DatabaseUnavailableError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
