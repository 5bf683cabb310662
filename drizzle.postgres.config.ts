import { defineConfig } from "drizzle-kit";

// The PostgreSQL schema's migrations (`bunx drizzle-kit generate --config drizzle.postgres.config.ts`), beside the
// SQLite ones of drizzle.config.ts: each dialect has its own committed SQL for the same tables.
export default defineConfig({
  dialect: "postgresql",
  schema: [
    "./src/db/postgres/schema.ts",
    "./src/db/postgres/x402-schema.ts",
    "./src/db/postgres/key-lease-schema.ts",
    "./src/db/postgres/webhook-schema.ts",
  ],
  out: "./src/db/postgres/migrations",
});
