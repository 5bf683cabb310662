// `bun run postgres`: a PostgreSQL of its own for trying relay402's PostgreSQL schema and adapters by hand, on
// POSTGRES_PORT (or a free port), in a temporary folder that Ctrl-C removes with the server. Prints DATABASE_URL.
import { startPostgres } from "./start";

const postgres = await startPostgres({
  port: process.env.POSTGRES_PORT ? Number(process.env.POSTGRES_PORT) : undefined,
  quiet: true,
  durable: true,
});
const url = await postgres.createDatabase("relay402");
console.log(`PostgreSQL ${postgres.port} (pid ${postgres.pid}), data in ${postgres.dir}`);
console.log(`DATABASE_URL=${url}`);
console.log("Ctrl-C stops it and removes its data.");

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await postgres.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
