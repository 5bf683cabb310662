// The `relay402` command line (`bun run start`, `bun src/main.ts`, the compiled binary): src/cli/commands.ts.
import "./production-env";
import { dispatch } from "./cli/commands";

const code = await dispatch(process.argv.slice(2), process.env);
if (code !== "running") process.exit(code);
