// Generated SQL from `drizzle-kit generate --config drizzle.postgres.config.ts`, imported as text so that
// `bun build --compile` embeds it. Add each new migration here, in order.
import m0000 from "./0000_initial.sql" with { type: "text" };

export const POSTGRES_MIGRATIONS: { name: string; sql: string }[] = [{ name: "0000_initial", sql: m0000 }];
