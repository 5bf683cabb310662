import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: [
    "./src/db/schema.ts",
    "./src/db/onboarding-schema.ts",
    "./src/db/dashboard-schema.ts",
    "./src/db/x402-schema.ts",
    "./src/db/key-lease-schema.ts",
    "./src/db/webhook-schema.ts",
  ],
  out: "./src/db/migrations",
});
