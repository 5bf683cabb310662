#!/usr/bin/env node
// relay402-mcp: the relay402 MCP server on stdio, for an AI agent's host (Claude Desktop and the like). Its key,
// the service's URL and the operator's limits come from its environment and config file (docs/agents.md).
import { runStdioMcpServer, SettingsError } from "./index.js";

try {
  await runStdioMcpServer(process.env);
} catch (error) {
  console.error(`relay402-mcp: ${error instanceof SettingsError ? error.message : (error as Error).name}`);
  process.exit(1);
}
