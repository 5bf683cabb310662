/** What one request of a load run came to. */
export type Outcome = { ok: boolean; latency: number; reason?: string; transaction?: string };

/**
 * The load generator: `concurrency` clients take the next body until none is left or the deadline passes (then
 * the bodies not started are counted, and every request in flight is aborted at the deadline), so that a phase
 * that hangs ends on time with what it measured.
 */
export async function drive<Body = string>(
  bodies: Body[],
  concurrency: number,
  send: (body: Body, signal: AbortSignal) => Promise<Omit<Outcome, "latency">>,
  deadlineMs: number,
) {
  const outcomes: Outcome[] = [];
  let next = 0;
  const started = performance.now();
  const deadline = started + deadlineMs;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, bodies.length) }, async () => {
      while (next < bodies.length && performance.now() < deadline) {
        const body = bodies[next++] as Body;
        const begin = performance.now();
        let result: Omit<Outcome, "latency">;
        try {
          result = await send(body, AbortSignal.timeout(Math.max(1, Math.ceil(deadline - begin))));
        } catch (error) {
          const name = (error as Error).name;
          result = {
            ok: false,
            reason:
              name === "TimeoutError" || name === "AbortError" ? "timeout" : (error as Error).message.slice(0, 80),
          };
        }
        outcomes.push({ ...result, latency: performance.now() - begin });
      }
    }),
  );
  return { outcomes, wallMs: performance.now() - started, notStarted: bodies.length - next };
}

/** POSTs a JSON body and reads the JSON answer (an answer that is not JSON becomes `{}`). */
export async function postJson(url: string, body: string, signal?: AbortSignal) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal });
  const text = await response.text();
  let json: Record<string, any> = {};
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, json };
}

/** A facilitator's `/verify` as a load lane: valid or the reason it gave. */
export const verifyAt = (baseUrl: string) => async (body: string, signal: AbortSignal) => {
  const { json } = await postJson(`${baseUrl}/verify`, body, signal);
  return { ok: json.isValid === true, reason: json.invalidReason ?? json.error };
};

/** A facilitator's `/settle` as a load lane: the transaction, or the reason (x402's, relay402's code, or the status). */
export const settleAt = (baseUrl: string) => async (body: string, signal: AbortSignal) => {
  const { status, json } = await postJson(`${baseUrl}/settle`, body, signal);
  return json.success === true
    ? { ok: true, transaction: json.transaction as string }
    : { ok: false, reason: json.errorReason ?? json.error ?? json.code ?? `HTTP ${status}` };
};
