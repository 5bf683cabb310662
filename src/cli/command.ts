/** The process environment as a command sees it (the service reads its secrets there, never from arguments). */
export type Env = Record<string, string | undefined>;

/**
 * One subcommand of the `relay402` command line (src/cli/commands.ts lists them). A new subcommand is a module
 * exporting one of these and one line in that list; the dispatcher answers `--help` and `--version` for it, so
 * `run` never sees them.
 *
 * - `name`: the word after `relay402` (`relay402 <name> …`).
 * - `summary`: one line for `relay402 --help`.
 * - `usage`: what `relay402 <name> --help` prints: the synopsis line(s), the options, the environment it reads.
 * - `run(argv, env)`: `argv` holds the arguments after the name. It resolves to the process's exit code (0 on
 *   success, 1 on a failure it has printed, 2 on a usage error), or to `"running"` when it started something that
 *   keeps the process alive (the service) and will exit by itself.
 */
export type Command = {
  name: string;
  summary: string;
  usage: string;
  run(argv: string[], env: Env): Promise<number | "running">;
};

/** A usage error: the dispatcher prints it with the command's usage and exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * The flags a command allows (`--name` booleans, `--name value` strings); anything else is a UsageError. Kept this
 * small on purpose: no command takes more than a handful of options.
 */
export function parseFlags<B extends string, S extends string>(
  argv: string[],
  spec: { booleans?: readonly B[]; strings?: readonly S[] },
): { booleans: Record<B, boolean>; strings: Partial<Record<S, string>> } {
  const booleans = Object.fromEntries((spec.booleans ?? []).map((name) => [name, false])) as Record<B, boolean>;
  const strings: Partial<Record<S, string>> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith("--") ? (arg.slice(2).split(/=(.*)/s) as [string, string?]) : [""];
    if ((spec.booleans as readonly string[] | undefined)?.includes(flag) && inline === undefined) {
      booleans[flag as B] = true;
    } else if ((spec.strings as readonly string[] | undefined)?.includes(flag)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") throw new UsageError(`--${flag} needs a value`);
      strings[flag as S] = value;
    } else {
      // A stray value is not echoed: it may be a key pasted in the wrong place (also as `--<key>`, so only a name
      // shaped like an option's is named).
      const named = arg.startsWith("--") && /^[a-z][a-z0-9-]{0,39}$/.test(flag);
      throw new UsageError(named ? `unknown option --${flag}` : `unexpected argument ${i + 1}`);
    }
  }
  return { booleans, strings };
}
