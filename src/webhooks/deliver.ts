import { webhookHeaders } from "./signature";

/** How one attempt ended: the receiver's HTTP status (none when it never answered) and, on failure, why. */
export type AttemptResult = { status: number | null; error: string | null };

/** What a delivery sends: Standard Webhooks' envelope of the event. */
export const deliveryBody = (event: { type: string; payload: string; createdAt: string }) =>
  `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.createdAt)},"data":${event.payload}}`;

/**
 * One POST of one event to one endpoint, signed for this attempt. A 2xx is a delivery; anything else, a timeout
 * or a refused connection is a failure to retry. Redirects are not followed (a receiver that moved answers 3xx
 * and is retried, never sent elsewhere), and the receiver's body is never read into a log or the database.
 */
export async function attemptDelivery(
  url: string,
  secret: string,
  messageId: string,
  body: string,
  timeoutMs: number,
  userAgent: string,
): Promise<AttemptResult> {
  const headers = webhookHeaders(secret, messageId, Math.floor(Date.now() / 1000), body);
  try {
    const response = await fetch(url, {
      method: "POST",
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      headers: { "content-type": "application/json", "user-agent": userAgent, ...headers },
    });
    await response.body?.cancel().catch(() => undefined);
    const ok = response.status >= 200 && response.status < 300;
    return { status: response.status, error: ok ? null : `answered ${response.status}` };
  } catch (error) {
    const name = (error as Error)?.name;
    const timedOut = name === "TimeoutError" || name === "AbortError";
    // The error's kind only: its message may quote the URL, which may carry a token.
    return { status: null, error: timedOut ? `no answer within ${timeoutMs} ms` : "connection failed" };
  }
}
