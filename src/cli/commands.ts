import { VERSION } from "../version";
import { checkCommand } from "./check";
import { type Command, type Env, UsageError } from "./command";
import { deployCommand } from "./deploy-command";
import { mcpCommand } from "./mcp-command";
import { startCommand } from "./start";

/**
 * Every subcommand of `relay402`, in the order `--help` lists them. A new one is a module exporting a `Command`
 * (src/cli/command.ts says what it declares) and one line here.
 */
export const COMMANDS: readonly Command[] = [startCommand, checkCommand, deployCommand, mcpCommand];

/** What runs when no subcommand is named (`relay402`, `relay402 --check`). */
const DEFAULT_COMMAND = startCommand;

export function mainUsage(commands: readonly Command[] = COMMANDS): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    "Usage: relay402 [command] [options]",
    "",
    "Commands:",
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    "",
    `With no command, relay402 runs \`${DEFAULT_COMMAND.name}\`.`,
    "Every command takes --help and --version. The config comes from the file named by RELAY402_CONFIG and the",
    "environment (docs/operating.md).",
  ].join("\n");
}

type Output = { out(text: string): void; err(text: string): void };
const consoleOutput: Output = { out: (text) => console.log(text), err: (text) => console.error(text) };

/**
 * Runs the command line `argv` (without the program's own path): picks the subcommand, answers --help and
 * --version for every one, and turns a UsageError into its message, the usage and exit code 2.
 */
export async function dispatch(
  argv: string[],
  env: Env,
  { commands = COMMANDS, output = consoleOutput }: { commands?: readonly Command[]; output?: Output } = {},
): Promise<number | "running"> {
  const [first, ...rest] = argv;
  const named = first !== undefined && !first.startsWith("-") ? commands.find((c) => c.name === first) : undefined;
  if (first !== undefined && !first.startsWith("-") && !named) {
    // Not echoed: a stray word may be a key pasted in the wrong place.
    output.err(`relay402: unknown command\n\n${mainUsage(commands)}`);
    return 2;
  }
  const command = named ?? DEFAULT_COMMAND;
  const args = named ? rest : argv;
  if (args.includes("--version")) {
    output.out(`relay402 ${VERSION}`);
    return 0;
  }
  if (args.includes("--help") || args.includes("-h")) {
    output.out(named ? command.usage : mainUsage(commands));
    return 0;
  }
  try {
    return await command.run(args, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`relay402 ${command.name}: ${error.message}\n\n${command.usage}`);
    return 2;
  }
}
