// Generated SQL from `drizzle-kit generate`, imported as text so that `bun build --compile` embeds it.
// Add each new migration here, in order.
import m0000 from "./0000_eoa_settlements.sql" with { type: "text" };

export const MIGRATIONS: { name: string; sql: string }[] = [{ name: "0000_eoa_settlements", sql: m0000 }];
