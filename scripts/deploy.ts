// `bun scripts/deploy.ts …` = `relay402 deploy …` until the CLI dispatcher (src/main.ts) routes subcommands.
import { deployCommand } from "../src/cli/deploy-command";

process.exit(await deployCommand.run(process.argv.slice(2), process.env));
