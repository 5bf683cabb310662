import { type Command, type Env, parseFlags } from "./command";

const usage = `Usage: relay402 mcp

Serves the relay402 MCP server on stdin/stdout for an AI agent's host (the client package's relay402-mcp bin, in
this binary): the agent pays, buys x402 resources and swaps within the operator's limits. docs/agents.md.

Environment:
  RELAY402_URL          the relay402 service the agent pays through
  RELAY402_PRIVATE_KEY  the agent's key (never logged nor returned)
  RELAY402_MCP_CONFIG   the server's config file: RPC URLs, limits, allowed recipients and hosts, data folder`;

async function run(argv: string[], env: Env): Promise<number | "running"> {
  parseFlags(argv, {});
  // Loaded here, not at the top: the MCP SDK and its schemas would otherwise weigh on every `relay402 start`.
  const { runStdioMcpServer, SettingsError } = await import("@relay402/client/mcp");
  try {
    await runStdioMcpServer(env);
    return "running";
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    console.error(`relay402 mcp: ${error.message}`);
    return 1;
  }
}

export const mcpCommand = {
  name: "mcp",
  summary: "serve the MCP server for AI agents on stdio (docs/agents.md)",
  usage,
  run,
} satisfies Command;
