export type LogFields = Record<string, unknown>;
export type Logger = {
  info(fields: LogFields): void;
  warn(fields: LogFields): void;
  error(fields: LogFields): void;
};

/** One JSON object per line. Callers pass fields, never whole config or request objects, so no secret can slip in. */
export function createLogger(options: { silent?: boolean; sink?: (line: string) => void } = {}): Logger {
  const sink = options.sink ?? ((line: string) => process.stdout.write(line));
  const write = (level: string, fields: LogFields) => {
    if (options.silent) return;
    sink(`${JSON.stringify({ level, time: new Date().toISOString(), ...fields })}\n`);
  };
  return {
    info: (fields) => write("info", fields),
    warn: (fields) => write("warn", fields),
    error: (fields) => write("error", fields),
  };
}

/** First line of an error message: enough to diagnose, never a stack trace or an RPC URL (it may hold an API key). */
export function shortReason(error: unknown): string {
  const message =
    error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : String(error);
  return (
    message
      .split("\n")[0]
      ?.replace(/https?:\/\/\S+/g, "<rpc>")
      .slice(0, 300) ?? "unknown error"
  );
}
