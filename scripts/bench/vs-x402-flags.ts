// bench:x402's command-line flags (`bun run bench:x402 -- --runs 3`), parsed once.
import { parseArgs } from "node:util";

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: "string", default: "1" },
    verifies: { type: "string", default: "4000" },
    "settles-c1": { type: "string", default: "30" },
    "settles-c1-blocks": { type: "string", default: "60" },
    "settles-c20": { type: "string", default: "100" },
    burst: { type: "string", default: "1000" },
    "burst-concurrency": { type: "string", default: "200" },
    "reference-polling-ms": { type: "string", default: "" },
    /** Settles per sponsored lane and side (vs-x402-sponsored.ts), each payer a new one. */
    "sponsored-settles": { type: "string", default: "20" },
    /** `--only sponsored`: the sponsored lanes alone (the warm-up still runs), each run. */
    only: { type: "string", default: "" },
    /** How relay402 runs: "binary" (the single binary an operator deploys) or "source" (`bun src/main.ts`'s code). */
    relay402: { type: "string", default: "binary" },
  },
});

export const RUNS = Number(flags.runs);
export const VERIFIES = Number(flags.verifies);
export const SETTLES_C1 = Number(flags["settles-c1"]);
export const SETTLES_C1_BLOCKS = Number(flags["settles-c1-blocks"]);
export const SETTLES_C20 = Number(flags["settles-c20"]);
export const BURST = Number(flags.burst);
export const BURST_CONCURRENCY = Number(flags["burst-concurrency"]);
export const REFERENCE_POLLING_MS = flags["reference-polling-ms"] ?? "";
export const SPONSORED_SETTLES = Number(flags["sponsored-settles"]);
if (flags.only && flags.only !== "sponsored") throw new Error(`--only takes "sponsored", not "${flags.only}"`);
export const SPONSORED_ONLY = flags.only === "sponsored";
if (flags.relay402 !== "binary" && flags.relay402 !== "source")
  throw new Error(`--relay402 takes "binary" or "source", not "${flags.relay402}"`);
export const RELAY402_FROM: "binary" | "source" = flags.relay402;
