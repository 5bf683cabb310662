import { ConfigError, loadConfig } from "../config/load";
import { DatabaseUnavailableError } from "../db/database-unavailable";
import { startServer } from "../server";
import { runCheck } from "./check";
import { type Command, parseFlags } from "./command";

/** `relay402 [start]`: the service, from the config file and the environment; `--check` only checks. */
export const startCommand: Command = {
  name: "start",
  summary: "run the service (the default command)",
  usage: `Usage: relay402 [start] [--check]

Runs the service: checks the config and every endpoint and contract it names, then listens on host:port.
  --check   run the start's checks, print them, and exit (0: it would start, 1: it would not); same as
            \`relay402 check\`

Environment: RELAY402_CONFIG (the config file), the secrets and overrides of docs/operating.md.`,
  async run(argv, env) {
    const { booleans } = parseFlags(argv, { booleans: ["check"] });
    if (booleans.check) return runCheck(env);
    let server: Awaited<ReturnType<typeof startServer>>;
    try {
      server = await startServer(loadConfig({ env }));
    } catch (error) {
      if (error instanceof ConfigError || error instanceof DatabaseUnavailableError) {
        console.error(error.message);
        return 1;
      }
      throw error;
    }
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
    return "running";
  },
};
