import { runStartChecks, type StartCheck } from "../chain/wiring-check";
import { databaseOf } from "../config/database";
import { ConfigError, loadConfig } from "../config/load";
import type { Config } from "../config/schema";
import { databaseProblem } from "../db/reachable";
import { type Command, type Env, parseFlags } from "./command";

/**
 * One line per check: `ok`, `FAILED` (stops the start), `off` (switches one flow off on its network) or `note`
 * (how the service works there because of what it found).
 */
export function formatChecks(checks: readonly StartCheck[]): string {
  const lines = checks.map((check) => {
    if (check.problem) return `FAILED  ${check.check}: ${check.problem}`;
    if (check.off) return `off     ${check.check}: ${check.off}`;
    if (check.note) return `note    ${check.check}: ${check.note}`;
    return `ok      ${check.check}`;
  });
  const failed = checks.filter((check) => check.problem).length;
  lines.push(
    failed === 0
      ? `${checks.length} checks: the service would start`
      : `${checks.length} checks, ${failed} failed: the service would not start`,
  );
  return lines.join("\n");
}

/**
 * Every check the start makes (the config, the database, then each network's endpoints, contracts and tokens),
 * printed as a list, without changing the database (no file created, no migration) or listening. Resolves to the exit code: 0 when the service would start, else 1.
 */
export async function runCheck(env: Env): Promise<number> {
  let config: Config;
  try {
    config = loadConfig({ env });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const problems = error.problems.map((problem) => ({ check: "config", problem }));
    console.log(formatChecks(problems));
    return 1;
  }
  const database = databaseOf(config);
  const [{ checks: chain }, databaseIssue] = await Promise.all([runStartChecks(config), databaseProblem(database)]);
  const checks: StartCheck[] = [
    { check: "config is valid" },
    {
      check: database.kind === "postgres" ? "databaseUrl answers" : "databasePath is writable",
      ...(databaseIssue ? { problem: databaseIssue } : {}),
    },
    ...chain,
  ];
  console.log(formatChecks(checks));
  return checks.some((check) => check.problem) ? 1 : 0;
}

/** `relay402 check`: what `relay402 start` would check, without starting. */
export const checkCommand: Command = {
  name: "check",
  summary: "run every check of the start and print them, without listening (exit 0: it would start)",
  usage: `Usage: relay402 check

Runs every check \`relay402 start\` makes and prints one line per check: "ok", "FAILED" with the reason (the
start would refuse) or "off" with the reason (the start would switch that flow off on its network). Nothing
listens, nothing is sent, the database is only asked whether it answers (no file created, no migration). Exit
code 0 when the service would start, 1 when not.
Same as \`relay402 start --check\`.

Environment: RELAY402_CONFIG (the config file), the secrets and overrides of docs/operating.md.`,
  async run(argv, env) {
    parseFlags(argv, {});
    return runCheck(env);
  },
};
