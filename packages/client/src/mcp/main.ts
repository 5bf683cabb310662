#!/usr/bin/env node
// relay402-mcp: the relay402 MCP server on stdio, for an AI agent's host (Claude Desktop and the like). Its key,
// the service's URL and the operator's limits come from its environment and config file (docs/agents.md).
import { mkdirSync, readFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createRelay402McpServer } from "./server.js";
import { loadMcpSettings, SettingsError } from "./settings.js";

try {
  const settings = loadMcpSettings(process.env);
  mkdirSync(settings.dataDir, { recursive: true });
  // The package's own version: package.json sits two folders up from src/mcp and from dist/mcp alike.
  const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  const server = createRelay402McpServer(settings, version);
  await server.connect(new StdioServerTransport());
  // stdout carries the protocol: anything for the operator goes to stderr.
  console.error(`relay402-mcp ${version}: ready for ${settings.account.address} on ${new URL(settings.url).origin}`);
} catch (error) {
  console.error(`relay402-mcp: ${error instanceof SettingsError ? error.message : (error as Error).name}`);
  process.exit(1);
}
