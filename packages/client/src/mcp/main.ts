#!/usr/bin/env node
// relay402-mcp: the relay402 MCP server on stdio, for an AI agent's host (Claude Desktop and the like). Its key,
// the service's URL and the operator's limits come from its environment and config file (docs/agents.md).
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createRelay402McpServer } from "./server.js";
import { loadMcpSettings, SettingsError } from "./settings.js";

// The package's version, kept in step with package.json by the release steps of the README.
const VERSION = "0.1.0";

try {
  const settings = loadMcpSettings(process.env);
  const server = createRelay402McpServer(settings, VERSION);
  await server.connect(new StdioServerTransport());
  // stdout carries the protocol: anything for the operator goes to stderr.
  console.error(`relay402-mcp: ready for ${settings.account.address} on ${new URL(settings.url).origin}`);
} catch (error) {
  console.error(`relay402-mcp: ${error instanceof SettingsError ? error.message : (error as Error).name}`);
  process.exit(1);
}
