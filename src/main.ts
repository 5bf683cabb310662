// The service's entry point (`bun run start`, the compiled binary): config from file + environment.
import "./production-env";
import { ConfigError, loadConfig } from "./config/load";
import { startServer } from "./server";

try {
  const server = await startServer(loadConfig());
  const shutdown = async () => {
    await server.stop();
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
