import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { deployCommand } from "./deploy-command";

// Argument and environment mistakes are refused before any connection (no chain is needed here).
const KEY = `0x${"ab".repeat(32)}`;
const printed = () => {
  const log = spyOn(console, "log").mockImplementation(() => {});
  const error = spyOn(console, "error").mockImplementation(() => {});
  return {
    out: () => log.mock.calls.flat().join("\n"),
    err: () => error.mock.calls.flat().join("\n"),
  };
};
afterEach(() => {
  (console.log as unknown as { mockRestore?: () => void }).mockRestore?.();
  (console.error as unknown as { mockRestore?: () => void }).mockRestore?.();
});

describe("relay402 deploy's command line", () => {
  test("--help prints the usage and exits 0", async () => {
    const io = printed();
    expect(await deployCommand.run(["--help"], {})).toBe(0);
    expect(io.out()).toContain("Usage: relay402 deploy --network");
    expect(deployCommand.name).toBe("deploy");
  });

  test("bad arguments exit 2 naming the problem", async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [[], {}, "--network is required"],
      [["--network", "ethereum", "--rpc-url", "http://x"], { DEPLOYER_KEY: KEY }, "unknown network ethereum"],
      [["--network", "bsc"], { DEPLOYER_KEY: KEY }, "--rpc-url (or BSC_RPC_URLS) is required"],
      [["--network", "bsc", "--rpc-url", "http://x"], {}, "DEPLOYER_KEY is required"],
      [
        ["--network", "bsc", "--rpc-url", "http://x", "--features", "payments,wallets"],
        { DEPLOYER_KEY: KEY },
        "unknown feature wallets",
      ],
      [
        ["--network", "bsc", "--rpc-url", "http://x", "--owner", "0x12"],
        { DEPLOYER_KEY: KEY },
        "--owner: not an address",
      ],
      [["--network", "bsc", "--rpc-url", "http://x", "--deployer-key", KEY], { DEPLOYER_KEY: KEY }, "deployer-key"],
      [["--network", "bsc", "--rpc-url", "http://x"], { DEPLOYER_KEY: KEY }, "smart-wallets needs --paymaster-signer"],
    ];
    for (const [argv, env, message] of cases) {
      const io = printed();
      expect(await deployCommand.run(argv, env)).toBe(2);
      expect(io.err()).toContain(message);
      expect(io.err()).not.toContain("ab".repeat(32));
    }
  });

  test("a malformed DEPLOYER_KEY is refused without echoing it", async () => {
    const io = printed();
    const secret = "0xnot-a-key-but-secret-anyway";
    expect(await deployCommand.run(["--network", "bsc", "--rpc-url", "http://x"], { DEPLOYER_KEY: secret })).toBe(2);
    expect(io.err()).toContain("DEPLOYER_KEY: not a 32-byte hex private key");
    expect(io.err()).not.toContain(secret);
  });
});
