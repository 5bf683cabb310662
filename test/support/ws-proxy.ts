import type { ServerWebSocket } from "bun";

type Link = { upstream: WebSocket; queue: string[] };

/**
 * A WebSocket proxy to a node's `upstreamUrl` that a test can cut (every socket closed, new ones refused) and
 * restore: what a provider's socket that drops looks like to the service.
 */
export function webSocketProxy(upstreamUrl: string, cleanups: (() => unknown)[]) {
  const state = { down: false };
  const clients = new Set<ServerWebSocket<Link>>();
  const server = Bun.serve<Link>({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request, srv) {
      if (state.down) return new Response("down", { status: 503 });
      const upstream = new WebSocket(upstreamUrl);
      if (srv.upgrade(request, { data: { upstream, queue: [] } })) return undefined;
      upstream.close();
      return new Response("not a WebSocket request", { status: 400 });
    },
    websocket: {
      open(socket) {
        clients.add(socket);
        const { upstream, queue } = socket.data;
        upstream.onopen = () => {
          for (const message of queue.splice(0)) upstream.send(message);
        };
        upstream.onmessage = (event) => socket.send(String(event.data));
        upstream.onclose = () => socket.close();
      },
      message(socket, message) {
        const { upstream, queue } = socket.data;
        if (upstream.readyState === WebSocket.OPEN) upstream.send(String(message));
        else queue.push(String(message));
      },
      close(socket) {
        clients.delete(socket);
        socket.data.upstream.close();
      },
    },
  });
  cleanups.push(() => server.stop(true));
  return {
    url: `ws://127.0.0.1:${server.port}`,
    cut() {
      state.down = true;
      for (const socket of clients) socket.close();
    },
    restore() {
      state.down = false;
    },
  };
}
