// relay402 deploy interrupted between two transactions (the process dies after one was mined) is run again and
// finishes; a third run finds nothing to send. On a bsc-like chain with no relay402 contract
// (test/support/rehearsal-chain.ts), through the deploy library the command runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { buildContracts } from "../../scripts/devnet/build";
import { type DeployOptions, deploy } from "../../src/operator/deploy/deploy";
import { DEFAULT_FEATURES, deployNetwork } from "../../src/operator/deploy/network";
import { type RehearsalChain, startRehearsalChain } from "../support/rehearsal-chain";

let chain: RehearsalChain;
const deployerKey = generatePrivateKey();
const deployer = privateKeyToAccount(deployerKey).address;

beforeAll(async () => {
  buildContracts();
  chain = await startRehearsalChain(56, { bundler: false });
  await chain.test.setBalance({ address: deployer, value: parseEther("10") });
}, 60_000);
afterAll(async () => {
  await chain?.stop();
}, 30_000);

class Interrupted extends Error {}

describe("deploy interrupted at any step", () => {
  const options = (): DeployOptions => {
    const network = deployNetwork("bsc");
    if (!network) throw new Error("bsc");
    return {
      network,
      features: DEFAULT_FEATURES,
      rpcUrl: chain.rpcUrl,
      deployerKey,
      paymasterSigner: privateKeyToAccount(generatePrivateKey()).address,
      tokens: network.tokens,
      feeRecipient: deployer,
      ownerIsEoa: false,
      paymasterDeposit: parseEther("0.1"),
      paymasterStake: { amount: parseEther("1"), unstakeDelaySec: 86_400 },
      allowUntrustedSetup: false,
      dryRun: false,
      pollingIntervalMs: 50,
    };
  };

  test("stopped after each transaction it sent, it is run again until done, and then sends nothing", async () => {
    // One set of options throughout: the paymaster signer is part of the paymaster's address.
    const fixed = options();
    let stops = 0;
    for (let attempt = 0; attempt < 20; attempt++) {
      const lines: string[] = [];
      try {
        // Dies about to send its second transaction: the first was sent (and, automined, mined).
        let sending = 0;
        await deploy(fixed, (line) => {
          lines.push(line);
          if (line.startsWith("  sending ") && ++sending === 2) throw new Interrupted();
        });
        break;
      } catch (error) {
        if (!(error instanceof Interrupted)) throw error;
        stops++;
      }
    }
    // Five deployments (the relayer, the factory, the paymaster, x402's exact and upto proxies) and the setup: one
    // whitelist per preset stablecoin, the paymaster's signer and its EntryPoint deposit with stake; at most one sent per stopped run (a run ending its step with one transaction carries on
    // into the next step).
    const tokens = options().tokens.length;
    expect(stops).toBeGreaterThanOrEqual(5);
    const nonce = await chain.public.getTransactionCount({ address: deployer });
    expect(nonce).toBe(5 + tokens + 2);
    const lines: string[] = [];
    const result = await deploy(fixed, (line) => lines.push(line));
    expect(result.sent).toBe(0);
    expect(lines).toContain("Nothing to send: every contract is deployed and set up.");
    expect(await chain.public.getTransactionCount({ address: deployer })).toBe(nonce);
  });
});
