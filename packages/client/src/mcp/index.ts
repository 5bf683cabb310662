// @relay402/client/mcp: the MCP server for AI agents (Node and Bun only). `relay402-mcp` (the package's bin) and
// `relay402 mcp` (the service's command line) both run `runStdioMcpServer`.
import { mkdirSync, readFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createRelay402McpServer } from "./server.js";
import { loadMcpSettings } from "./settings.js";

export type { HostResolver } from "./resource-fetch.js";
export { createRelay402McpServer } from "./server.js";
export { loadMcpSettings, type McpSettings, SettingsError, type TokenLimits } from "./settings.js";
export type { PurchaseOptions } from "./x402-purchase.js";

/**
 * Reads the settings from `env` (RELAY402_URL, RELAY402_PRIVATE_KEY, RELAY402_MCP_CONFIG) and serves MCP on
 * stdin/stdout until stdin closes. Throws SettingsError (a message without secrets) on bad settings.
 */
export async function runStdioMcpServer(env: Record<string, string | undefined>): Promise<void> {
  const settings = loadMcpSettings(env);
  mkdirSync(settings.dataDir, { recursive: true });
  // The package's own version: package.json sits two folders up from src/mcp and from dist/mcp alike.
  const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  const server = createRelay402McpServer(settings, version);
  await server.connect(new StdioServerTransport());
  // stdout carries the protocol: anything for the operator goes to stderr.
  console.error(`relay402-mcp ${version}: ready for ${settings.account.address} on ${new URL(settings.url).origin}`);
}
