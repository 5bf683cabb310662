// Child of scripts/bench/vs-x402.ts: relay402 in a process of its own, with the config given in
// RELAY402_BENCH_CONFIG (encoded as a config file would be). Reports its URL over IPC and stops on "stop".
import "../../src/production-env";
import { validateConfig } from "../../src/config/load";
import { startServer } from "../../src/server";

const service = await startServer(validateConfig(JSON.parse(process.env.RELAY402_BENCH_CONFIG ?? "{}")), {
  silent: true,
});
process.on("message", (message) => {
  if (message === "stop") service.stop().finally(() => process.exit(0));
});
process.send?.({ kind: "ready", url: service.url });
