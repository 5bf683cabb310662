// Child of scripts/bench/webhooks.ts: one webhook receiver per secret of BENCH_RECEIVER_SECRETS (a JSON list), each
// delivery it verified reported over IPC as it arrives; `{ command: "down" | "up", receiver }` closes or opens one
// receiver's port (answered once done), "stop" exits.
import { type ReceiverMessage, serveReceiver } from "./webhook-receiver";

const secrets = JSON.parse(process.env.BENCH_RECEIVER_SECRETS ?? "[]") as string[];
const send = (message: ReceiverMessage) => process.send?.(message);
const receivers = secrets.map((secret, receiver) =>
  serveReceiver(
    secret,
    (arrival) => send({ kind: "arrival", receiver, arrival }),
    () => send({ kind: "rejected", receiver }),
  ),
);

process.on("message", (message: "stop" | { command: "down" | "up"; receiver: number }) => {
  if (message === "stop") process.exit(0);
  const receiver = receivers[message.receiver];
  if (!receiver) return;
  receiver[message.command]();
  send({ kind: "done", receiver: message.receiver, command: message.command });
});
process.send?.({ kind: "ready", url: receivers[0]?.url ?? "none", info: { urls: receivers.map((each) => each.url) } });
