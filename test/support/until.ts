/** Polls `check` until it holds; throws naming `what` after `timeoutMs`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, pollMs = 20 }: { timeoutMs?: number; pollMs?: number } = {},
): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(pollMs);
  }
}
