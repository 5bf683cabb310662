// The service's entry point (`bun run start`, the compiled binary): config from file + environment.
import "./production-env";
import { ConfigError, loadConfig } from "./config/load";
import { startService } from "./service";

try {
  const service = await startService(loadConfig());
  const shutdown = async () => {
    await service.stop();
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
