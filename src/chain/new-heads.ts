import type { Logger } from "../logger";

/**
 * New block numbers pushed by the node over a WebSocket `eth_subscribe("newHeads")`, for the receipt poller: with
 * it, receipts are asked for when a block arrives instead of reading eth_blockNumber every tenth of a block. One
 * subscription per network, opened at start. A socket that closes, fails to open or answers the subscription with
 * an error is opened again after a backoff (250 ms doubling to 10 s); meanwhile `live` is false and the poller
 * polls, so a dead socket never stalls receipts. One that stays open but goes silent is polled around by the
 * poller, which restarts it once its polls see blocks the socket did not push. The URL is never logged: a
 * provider's WebSocket URL often carries its API key.
 */
export interface NewHeads {
  /** Subscribed: heads are expected from the socket. */
  readonly live: boolean;
  /** Date.now() of the last head received (0 before the first). */
  readonly lastHeadAt: number;
  /** Called with each new head's block number; returns an unsubscribe function. */
  onHead(listener: (blockNumber: bigint) => void): () => void;
  /** Called when `live` changes. */
  onLive(listener: (live: boolean) => void): () => void;
  /** Closes the socket and opens a new one (after the backoff): for a socket that is open but pushes nothing. */
  restart(reason: string): void;
  stop(): void;
}

export interface NewHeadsOptions {
  url: string;
  /** Named in every log line (the URL never is). */
  network?: string;
  logger: Logger;
  /** First pause before opening a closed socket again; doubles up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** A socket not subscribed within this time is closed and opened again. */
  connectTimeoutMs?: number;
}

type SubscriptionMessage = {
  id?: number;
  result?: unknown;
  error?: { message?: string };
  method?: string;
  params?: { subscription?: string; result?: { number?: string } };
};

const SUBSCRIBE_ID = 1;

export function createNewHeads({
  url,
  network,
  logger,
  backoffMs = 250,
  maxBackoffMs = 10_000,
  connectTimeoutMs = 10_000,
}: NewHeadsOptions): NewHeads {
  const headListeners = new Set<(blockNumber: bigint) => void>();
  const liveListeners = new Set<(live: boolean) => void>();
  let socket: WebSocket | undefined;
  let subscription: string | undefined;
  let live = false;
  let lastHeadAt = 0;
  let stopped = false;
  let nextBackoffMs = backoffMs;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  let connectTimer: ReturnType<typeof setTimeout> | undefined;

  function setLive(value: boolean) {
    if (live === value) return;
    live = value;
    logger.info({ event: value ? "new_heads_subscribed" : "new_heads_down", network });
    for (const listener of liveListeners) listener(value);
  }

  /** Ends this socket (whatever its state) and schedules the next one. */
  function drop(current: WebSocket, reason: string) {
    if (socket !== current) return;
    socket = undefined;
    subscription = undefined;
    clearTimeout(connectTimer);
    try {
      current.close();
    } catch {
      // already closed
    }
    setLive(false);
    retryLater(reason);
  }

  function retryLater(reason: string) {
    if (stopped) return;
    logger.warn({ event: "new_heads_reconnect", network, reason, retryInMs: nextBackoffMs });
    reconnectTimer = setTimeout(connect, nextBackoffMs);
    nextBackoffMs = Math.min(maxBackoffMs, nextBackoffMs * 2);
  }

  function onMessage(current: WebSocket, data: unknown) {
    let message: SubscriptionMessage;
    try {
      message = JSON.parse(String(data)) as SubscriptionMessage;
    } catch {
      return;
    }
    if (message.id === SUBSCRIBE_ID && subscription === undefined) {
      if (typeof message.result !== "string") {
        drop(current, `eth_subscribe refused: ${message.error?.message ?? "no subscription id"}`);
        return;
      }
      subscription = message.result;
      clearTimeout(connectTimer);
      nextBackoffMs = backoffMs;
      setLive(true);
      return;
    }
    if (message.method !== "eth_subscription" || message.params?.subscription !== subscription) return;
    const number = message.params?.result?.number;
    if (typeof number !== "string") return;
    let blockNumber: bigint;
    try {
      blockNumber = BigInt(number);
    } catch {
      return;
    }
    lastHeadAt = Date.now();
    for (const listener of headListeners) listener(blockNumber);
  }

  function connect() {
    reconnectTimer = undefined;
    if (stopped) return;
    let current: WebSocket;
    try {
      current = new WebSocket(url);
    } catch {
      // A URL the schema let through but WebSocket refuses (its message would quote the URL): keep polling.
      retryLater("WebSocket refused the URL");
      return;
    }
    socket = current;
    connectTimer = setTimeout(() => drop(current, "not subscribed in time"), connectTimeoutMs);
    current.onopen = () => {
      current.send(JSON.stringify({ jsonrpc: "2.0", id: SUBSCRIBE_ID, method: "eth_subscribe", params: ["newHeads"] }));
    };
    current.onmessage = (event) => onMessage(current, event.data);
    current.onerror = () => drop(current, "socket error");
    current.onclose = (event) => drop(current, `socket closed (${event.code})`);
  }

  connect();

  return {
    get live() {
      return live;
    },
    get lastHeadAt() {
      return lastHeadAt;
    },
    onHead(listener) {
      headListeners.add(listener);
      return () => headListeners.delete(listener);
    },
    onLive(listener) {
      liveListeners.add(listener);
      return () => liveListeners.delete(listener);
    },
    restart(reason) {
      if (socket) drop(socket, reason);
    },
    stop() {
      stopped = true;
      clearTimeout(reconnectTimer);
      clearTimeout(connectTimer);
      const current = socket;
      socket = undefined;
      subscription = undefined;
      live = false;
      headListeners.clear();
      liveListeners.clear();
      try {
        current?.close();
      } catch {
        // already closed
      }
    },
  };
}
