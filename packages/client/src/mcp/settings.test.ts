import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadMcpSettings } from "./settings.js";

const dir = mkdtempSync(join(tmpdir(), "relay402-mcp-settings-"));
const config = join(dir, "mcp.json");
writeFileSync(config, JSON.stringify({ rpcUrls: {}, limits: [] }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const load = (url: string) =>
  loadMcpSettings({ RELAY402_URL: url, RELAY402_PRIVATE_KEY: `0x${"11".repeat(32)}`, RELAY402_MCP_CONFIG: config });

describe("the service's URL", () => {
  test("plain http is refused unless it is this machine: the service's answers choose what is signed", () => {
    for (const url of ["http://relay402.example.com", "http://10.0.0.2:3000", "http://localhost.example.com"]) {
      expect(() => load(url)).toThrow("RELAY402_URL must be https:");
    }
    expect(() => load("ftp://relay402.example.com")).toThrow("RELAY402_URL must be https:");
  });

  test("https anywhere, and http on loopback, are accepted", () => {
    for (const url of [
      "https://relay402.example.com",
      "http://localhost:3000",
      "http://127.0.0.1:3000",
      "http://[::1]:3000",
    ]) {
      expect(load(url).url).toBe(url);
    }
  });
});
