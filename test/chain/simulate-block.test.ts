import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Instance } from "prool";
import { type Address, type Hex, type PublicClient, parseEther, parseGwei, toHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { freePort } from "../../scripts/devnet/ports";
import { SimulationRevertedError } from "../../src/chain/errors";
import { createExecutor, type Executor } from "../../src/chain/executor";
import { createChainClient } from "../../src/chain/rpc";

// The pre-send simulation runs on the latest block as the next one (eth_call block override: time max(now, latest
// + 1), number latest + 1), not on anvil's "pending" block, which anvil rebuilds from its whole pool for every call.
// Judged with a contract that reverts unless block.timestamp >= T, on a real anvil.

const CHAIN_ID = 56;
const GATE: Address = "0x0000000000000000000000000000000000000a7e";
const MNEMONIC = "test test test test test test test test test test test junk";

let anvil: ReturnType<typeof Instance.anvil>;
let client: PublicClient;
let executor: Executor;
let rpcUrl: string;
let privateKey: Hex;
const running: Executor[] = [];

const rpc = (method: string, params: unknown[] = []) => client.request({ method, params } as never) as Promise<unknown>;

/** Runtime code: revert unless block.timestamp >= `notBefore`. */
const gateCode = (notBefore: number): Hex => `0x63${notBefore.toString(16).padStart(8, "0")}4210600b57005b5f5ffd`;
const call = { to: GATE, data: "0x" as Hex, value: 0n, gas: 50_000n };
const nowSeconds = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  const port = await freePort();
  anvil = Instance.anvil({
    binary: `${process.cwd()}/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil`,
    chainId: CHAIN_ID,
    host: "127.0.0.1",
    port,
  } as Parameters<typeof Instance.anvil>[0]);
  await anvil.start();
  rpcUrl = `http://127.0.0.1:${port}`;
  client = createChainClient({ chainId: CHAIN_ID, rpcUrls: [rpcUrl] });
  const key = mnemonicToAccount(MNEMONIC, { addressIndex: 90 }).getHdKey().privateKey;
  if (!key) throw new Error("no key");
  privateKey = toHex(key);
  await rpc("anvil_setBalance", [mnemonicToAccount(MNEMONIC, { addressIndex: 90 }).address, toHex(parseEther("1"))]);
  executor = executorOn(rpcUrl, privateKey);
});

afterAll(async () => {
  for (const each of running) each.stop();
  await anvil?.stop();
});

function executorOn(url: string, privateKey: Hex): Executor {
  const created = createExecutor({
    client: createChainClient({ chainId: CHAIN_ID, rpcUrls: [url] }),
    chainId: CHAIN_ID,
    privateKeys: [privateKey],
    maxFeePerGasCap: parseGwei("1000"),
    receiptTimeoutMs: 10_000,
    replaceAfterMs: 10_000,
    pollIntervalMs: 50,
    // Fees (and the latest block's head read with them) are not reused: each test sees the block it just mined.
    feeCacheMs: 1,
  });
  running.push(created);
  return created;
}

describe("the pre-send simulation's block", () => {
  test("an idle chain whose latest block is older than now: an authorization valid from now passes", async () => {
    await rpc("evm_mine");
    await Bun.sleep(2_100);
    const notBefore = nowSeconds();
    const latest = await client.getBlock({ blockTag: "latest" });
    expect(Number(latest.timestamp)).toBeLessThan(notBefore);
    await rpc("anvil_setCode", [GATE, gateCode(notBefore)]);
    // The plain call on that latest block reverts: the override is what makes it pass.
    await expect(client.call({ ...call, blockTag: "latest" })).rejects.toThrow();
    await executor.simulate(call);
    // Still refused when it is not valid yet at all.
    await rpc("anvil_setCode", [GATE, gateCode(nowSeconds() + 30)]);
    await expect(executor.simulate(call)).rejects.toBeInstanceOf(SimulationRevertedError);
  });

  test("a revert's data stays on the error, read from its cause: a flow decodes it, never the message", async () => {
    const reverter: Address = "0x0000000000000000000000000000000000000bad";
    // PUSH4 selector, PUSH0, MSTORE, then REVERT with the word's last 4 bytes.
    await rpc("anvil_setCode", [reverter, "0x63258a195a5f526004601cfd"]);
    const error = await executor.simulate({ ...call, to: reverter }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SimulationRevertedError);
    expect((error as SimulationRevertedError).revertData).toBe("0x258a195a");
  });

  test("a chain whose clock runs ahead of ours: the next block's time is the latest block's + 1 s", async () => {
    const ahead = nowSeconds() + 1_000;
    await rpc("evm_setNextBlockTimestamp", [toHex(ahead)]);
    await rpc("evm_mine");
    await rpc("anvil_setCode", [GATE, gateCode(ahead + 1)]);
    await executor.simulate(call);
    await rpc("anvil_setCode", [GATE, gateCode(ahead + 5)]);
    await expect(executor.simulate(call)).rejects.toBeInstanceOf(SimulationRevertedError);
  });

  test("a node that refuses the block override (invalid params): the pending block, and the verdict still holds", async () => {
    const seen: unknown[][] = [];
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const body = await request.text();
        const parsed = JSON.parse(body) as { id: number; method: string; params?: unknown[] }[] | { id: number };
        const calls = (Array.isArray(parsed) ? parsed : [parsed]) as {
          id: number;
          method: string;
          params?: unknown[];
        }[];
        const answers = await Promise.all(
          calls.map(async (each) => {
            if (each.method === "eth_call") {
              seen.push(each.params ?? []);
              if ((each.params?.length ?? 0) > 3)
                return {
                  jsonrpc: "2.0",
                  id: each.id,
                  error: { code: -32602, message: "too many arguments, want at most 3" },
                };
            }
            const response = await fetch(rpcUrl, {
              method: "POST",
              body: JSON.stringify(each),
              headers: { "content-type": "application/json" },
            });
            return response.json();
          }),
        );
        return Response.json(Array.isArray(parsed) ? answers : answers[0]);
      },
    });
    try {
      const old = executorOn(`http://127.0.0.1:${server.port}`, privateKey);
      const latest = await client.getBlock({ blockTag: "latest" });
      await rpc("anvil_setCode", [GATE, gateCode(Number(latest.timestamp))]);
      await old.simulate(call);
      await rpc("anvil_setCode", [GATE, gateCode(Number(latest.timestamp) + 1_000)]);
      await expect(old.simulate(call)).rejects.toBeInstanceOf(SimulationRevertedError);
      // Asked once with the override, then only on the pending block.
      expect(seen.map((params) => params[1])).toEqual(["latest", "pending", "pending"]);
    } finally {
      server.stop(true);
    }
  });
});
