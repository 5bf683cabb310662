import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config/load";
import { bscProductionConfig } from "../support/production-config";

const { env, file } = bscProductionConfig();

describe("networks.*.wsUrl", () => {
  test("absent by default (receipts are polled); BSC_WS_URL sets it", () => {
    expect(loadConfig({ env, file }).networks.bsc?.wsUrl).toBeUndefined();
    const url = "wss://bsc.example/ws/some-api-key";
    expect(loadConfig({ env: { ...env, BSC_WS_URL: url }, file }).networks.bsc?.wsUrl).toBe(url);
    expect(loadConfig({ env: { ...env, BSC_WS_URL: "ws://127.0.0.1:8545" }, file }).networks.bsc?.wsUrl).toBe(
      "ws://127.0.0.1:8545",
    );
  });

  test("a URL that is not ws:// or wss:// stops the start naming the field, without quoting it", () => {
    for (const bad of ["http://127.0.0.1:8545/secret-key", "wss://host/with space", "secret-key"]) {
      let message = "";
      try {
        loadConfig({ env: { ...env, BSC_WS_URL: bad }, file });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        message = (error as Error).message;
      }
      expect(message).toContain("networks.bsc.wsUrl");
      expect(message).not.toContain("secret-key");
    }
  });
});
