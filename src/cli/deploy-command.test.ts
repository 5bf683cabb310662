import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { PUBLIC_TEST_MNEMONIC } from "../config/public-keys";
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
      [["--network", "ethereum", "--rpc-url", "http://x"], { DEPLOYER_KEY: KEY }, "--network: not a known network"],
      [["--network", "bsc"], { DEPLOYER_KEY: KEY }, "--rpc-url (or BSC_RPC_URLS) is required"],
      [["--network", "bsc", "--rpc-url", "http://x"], {}, "DEPLOYER_KEY is required"],
      [
        ["--network", "bsc", "--rpc-url", "http://x", "--features", "payments,wallets"],
        { DEPLOYER_KEY: KEY },
        "--features: a feature is not known",
      ],
      [
        ["--network", "bsc-testnet", "--rpc-url", "http://x", "--owner", "0x12"],
        { DEPLOYER_KEY: KEY },
        "--owner: not an address",
      ],
      [["--network", "bsc", "--rpc-url", "http://x", "--deployer-key", KEY], { DEPLOYER_KEY: KEY }, "deployer-key"],
      [
        ["--network", "bsc-testnet", "--rpc-url", "http://x"],
        { DEPLOYER_KEY: KEY },
        "smart-wallets needs --paymaster-signer",
      ],
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

/** No node listens there: a run that passes every check fails at its first read, quickly ("failed: …", exit 1). */
const NOWHERE = "http://127.0.0.1:1";
const someAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const publicKey = (index: number) => {
  const key = mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: index }).getHdKey().privateKey as Uint8Array;
  return `0x${Buffer.from(key).toString("hex")}`;
};

/** One run of the command with what it printed (both streams), the spies removed afterwards. */
async function runPrinting(argv: string[], env: Record<string, string>) {
  const io = printed();
  try {
    const code = await deployCommand.run(argv, env);
    return { code, err: io.err(), all: `${io.out()}\n${io.err()}` };
  } finally {
    (console.log as unknown as { mockRestore(): void }).mockRestore();
    (console.error as unknown as { mockRestore(): void }).mockRestore();
  }
}

describe("relay402 deploy never prints an argument back", () => {
  test("a key pasted in any place is refused or ignored, and no line printed holds it", async () => {
    const pasted = generatePrivateKey();
    const bare = pasted.slice(2);
    const base = ["--network", "bsc-testnet", "--rpc-url", NOWHERE, "--paymaster-signer", someAddress()];
    const runs: string[][] = [
      [pasted],
      [...base, pasted],
      [...base, bare],
      ["--network", pasted, "--rpc-url", NOWHERE],
      ["--network", bare, "--rpc-url", NOWHERE],
      [`--${pasted}`, ...base],
      [`--${bare}`, ...base],
      [...base, `--dry-run=${pasted}`],
      ...[
        "--rpc-url",
        "--features",
        "--tokens",
        "--owner",
        "--fee-recipient",
        "--paymaster-signer",
        "--paymaster-deposit",
        "--paymaster-stake",
        "--unstake-delay",
        "--verifier",
        "--domain-name",
        "--config-out",
      ].flatMap((flag) => [
        [...base, flag, pasted],
        [...base, `${flag}=${bare}`],
      ]),
    ];
    for (const argv of runs) {
      const run = await runPrinting(argv, { DEPLOYER_KEY: KEY });
      expect(run.code).toBeGreaterThan(0);
      expect(run.all.toLowerCase(), argv.join(" ")).not.toContain(bare);
    }
  }, 60_000);
});

describe("relay402 deploy on a mainnet", () => {
  for (const network of ["bsc", "base"]) {
    const prefix = network.toUpperCase();

    test(`${network}: --owner is required, or --keep-deploy-key-owner; not both`, async () => {
      const argv = ["--network", network, "--rpc-url", NOWHERE, "--paymaster-signer", someAddress()];
      const env = { DEPLOYER_KEY: KEY };
      const alone = await runPrinting(argv, env);
      expect(alone.code).toBe(2);
      expect(alone.err).toContain(`--owner is required on ${network}`);
      expect(alone.err).toContain("--keep-deploy-key-owner");
      const both = await runPrinting([...argv, "--owner", someAddress(), "--keep-deploy-key-owner"], env);
      expect(both.code).toBe(2);
      expect(both.err).toContain("--owner and --keep-deploy-key-owner");
      // Either one passes the check: the run goes on to the chain (none listens here).
      for (const choice of [["--owner", someAddress()], ["--keep-deploy-key-owner"]]) {
        const run = await runPrinting([...argv, ...choice], env);
        expect(run.code).toBe(1);
        expect(run.err).toContain("relay402 deploy: failed:");
      }
    }, 20_000);

    test(`${network}: a public test key as deploy key or paymaster signer is refused, named, never shown`, async () => {
      const cases: { argv: string[]; env: Record<string, string>; field: string; secret: string }[] = [
        {
          argv: ["--paymaster-signer", someAddress()],
          env: { DEPLOYER_KEY: publicKey(0) },
          field: "DEPLOYER_KEY",
          secret: publicKey(0),
        },
        {
          argv: [],
          env: { DEPLOYER_KEY: KEY, [`${prefix}_PAYMASTER_SIGNER_KEY`]: publicKey(3) },
          field: `${prefix}_PAYMASTER_SIGNER_KEY`,
          secret: publicKey(3),
        },
        {
          argv: ["--paymaster-signer", privateKeyToAccount(publicKey(19) as `0x${string}`).address],
          env: { DEPLOYER_KEY: KEY },
          field: "--paymaster-signer",
          secret: publicKey(19),
        },
      ];
      for (const { argv, env, field, secret } of cases) {
        const run = await runPrinting(
          ["--network", network, "--rpc-url", NOWHERE, "--owner", someAddress(), ...argv],
          env,
        );
        expect(run.code).toBe(1);
        expect(run.err).toContain(`${field}: a key of the public test mnemonic`);
        expect(run.all).not.toContain(secret.slice(2));
      }
    });
  }

  test("a testnet takes the public test keys and no --owner (a rehearsal's keys)", async () => {
    const env = { DEPLOYER_KEY: publicKey(0), BSC_TESTNET_PAYMASTER_SIGNER_KEY: publicKey(1) };
    const run = await runPrinting(["--network", "bsc-testnet", "--rpc-url", NOWHERE], env);
    expect(run.code).toBe(1);
    expect(run.err).toContain("relay402 deploy: failed:");
  });
});
