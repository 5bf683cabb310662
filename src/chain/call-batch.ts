import type { Address, Hex } from "viem";

/**
 * As viem's http transport, a batch is sent once the event loop turns (a timer: about 1 ms under Bun), or at once
 * when it holds this many calls. The node answers a batch when its last call is done, so with sixteen clients a batch
 * of nine took anvil about 5 ms; batches of five, sent without the wait and several at a time, served 10–25 % more
 * verifies per second on the 2-core bench (`bun run bench:x402`) for two more round trips per ten verifies.
 */
const MAX_BATCH = 5;
/** How long the URL is skipped after a batch failed as a whole. */
const SKIP_AFTER_FAILURE_MS = 10_000;

type Pending = { json: string; resolve(value: Hex): void; reject(error: unknown): void };

/**
 * The verifies' eth_calls ("latest") in one JSON-RPC batch per turn of the event loop, written with JSON.stringify and
 * sent with one fetch to `url`. Through viem's client each call took its request, retry, fallback and batch
 * wrappers, and its batch was serialised with a replacer (for bigints) that made JSON.stringify walk the ERC-6492
 * validator's 3 KB of code per verify: together about a fifth of a verify's CPU.
 *
 * Only an answer the node gave is returned: anything else (the URL unreachable, a status that is not 2xx, a body
 * that is not a batch answer, a JSON-RPC error, a result that is not hex) rejects that call, and the caller then asks
 * viem's client, whose transport fails over to the network's other URLs and whose error is the one it answered with
 * before. So a verdict never depends on this path, only its cost.
 */
export function createCallBatcher(rpcUrl: string, timeoutMs: number) {
  // Credentials in the URL go in an Authorization header, as viem's http transport sends them.
  const parsed = new URL(rpcUrl);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (parsed.username || parsed.password) {
    headers.authorization = `Basic ${btoa(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`)}`;
    parsed.username = "";
    parsed.password = "";
  }
  const url = parsed.toString();
  let queue: Pending[] = [];
  /**
   * Until when the URL is skipped after a batch failed as a whole (unreachable, timed out, not 2xx, no batch answer):
   * meanwhile calls reject at once and go straight through viem's client, so a dead or silent first URL costs a verify
   * viem's own failover once, not a wait here first.
   */
  let skipUntil = 0;
  let nextId = 1;

  async function send(batch: Pending[]) {
    const ids = new Map<number, Pending>();
    const parts: string[] = [];
    for (const call of batch) {
      const id = nextId++;
      ids.set(id, call);
      parts.push(`{"jsonrpc":"2.0","id":${id},${call.json}}`);
    }
    try {
      const response = await fetch(url, {
        method: "POST",
        headers,
        body: `[${parts.join(",")}]`,
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const answers: unknown = await response.json();
      if (!Array.isArray(answers)) throw new Error("not a batch answer");
      for (const answer of answers as { id?: unknown; result?: unknown }[]) {
        const call = typeof answer?.id === "number" ? ids.get(answer.id) : undefined;
        if (!call) continue;
        ids.delete(answer.id as number);
        if (typeof answer.result === "string" && /^0x[0-9a-fA-F]*$/.test(answer.result))
          call.resolve(answer.result as Hex);
        else call.reject(new Error("no hex result"));
      }
      for (const call of ids.values()) call.reject(new Error("no answer in the batch"));
    } catch (error) {
      skipUntil = Date.now() + SKIP_AFTER_FAILURE_MS;
      for (const call of ids.values()) call.reject(error);
    }
  }

  const flush = () => {
    const batch = queue;
    queue = [];
    if (batch.length > 0) void send(batch);
  };

  const enqueue = (json: string) =>
    new Promise<Hex>((resolve, reject) => {
      if (Date.now() < skipUntil) return reject(new Error("the URL failed recently"));
      if (queue.length === 0) setTimeout(flush, 0);
      queue.push({ json, resolve, reject });
      if (queue.length >= MAX_BATCH) flush();
    });

  /**
   * eth_call at the latest block; `to` undefined for a deployless call (creation code as data); `time` runs it with
   * that block time (a block override, as viem's `call({ blockOverrides: { time } })` sends it).
   */
  function call(to: Address | undefined, data: Hex, time?: bigint): Promise<Hex> {
    // The data goes into the JSON text as it is, so a quote or a backslash could end its string: refused. A test
    // of every character for hex cost 10 µs for the validator's 3 KB; anything else not hex is the node's to
    // refuse (an error answer, and the call is asked again through viem's client).
    if (
      !data.startsWith("0x") ||
      data.includes('"') ||
      data.includes("\\") ||
      (to !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(to))
    )
      return Promise.reject(new Error("not hex"));
    const request = to === undefined ? `{"data":"${data}"}` : `{"to":"${to}","data":"${data}"}`;
    const overrides = time === undefined ? "" : `,{},{"time":"0x${time.toString(16)}"}`;
    return enqueue(`"method":"eth_call","params":[${request},"latest"${overrides}]`);
  }

  return { call };
}

export type CallBatcher = ReturnType<typeof createCallBatcher>;
