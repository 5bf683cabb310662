import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { v2RouterAbi } from "@relay402/client/wire/swap/abis";
import { Instance } from "prool";
import { createPublicClient, createWalletClient, http, parseAbi } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { forgeArtifact } from "../../scripts/devnet/artifacts";
import { buildContracts } from "../../scripts/devnet/build";
import { devnetChain } from "../../scripts/devnet/chain";
import { deployDex } from "../../scripts/devnet/dex";
import { devnetKeys } from "../../scripts/devnet/keys";
import { freePort } from "../../scripts/devnet/ports";

/**
 * `BLOCK_TIME=1` devnets (interval mining): the DEX's creations fill blocks close to the gas limit, and anvil
 * once lost the seeding transactions queued behind them, so the start failed on a receipt timeout every time.
 * On an anvil of its own (not the suite's automine devnet).
 */
describe("devnet DEX under 1-second blocks", () => {
  test("deploys and seeds, and the V2 router quotes through the seeded pairs", async () => {
    buildContracts();
    const port = await freePort();
    const rpcUrl = `http://127.0.0.1:${port}`;
    const anvil = Instance.anvil({
      binary: join(import.meta.dir, "../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"),
      chainId: 56,
      host: "127.0.0.1",
      port,
      blockTime: 1,
    } as Parameters<typeof Instance.anvil>[0]);
    await anvil.start();
    try {
      const chain = devnetChain(56, "bsc-interval", rpcUrl);
      const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
      const owner = createWalletClient({
        chain,
        transport: http(rpcUrl),
        account: privateKeyToAccount(devnetKeys.owner),
      });
      const paymentToken = (async () => {
        const hash = await owner.deployContract({
          abi: [],
          bytecode: forgeArtifact("TestUSDT.sol", "TestUSDT").bytecode,
        });
        const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 });
        if (!receipt.contractAddress) throw new Error("TestUSDT not deployed");
        return { address: receipt.contractAddress, decimals: 18 };
      })();

      const { dex, tokens } = await deployDex(rpcUrl, chain, { forked: false, paymentToken });
      if (!dex || !tokens.DAI) throw new Error("no DEX deployed");
      const usdt = (await paymentToken).address;
      const amounts = await publicClient.readContract({
        address: dex.v2.router,
        abi: v2RouterAbi,
        functionName: "getAmountsOut",
        args: [10n ** 18n, [usdt, dex.wrappedNative, tokens.DAI.address]],
      });
      // 1 USDT -> W -> DAI at 1 W = 1000 of each, less two 0.3% fees.
      expect(amounts.at(-1)).toBeGreaterThan((10n ** 18n * 993n) / 1000n);
      expect(amounts.at(-1)).toBeLessThan(10n ** 18n);
      const payer = privateKeyToAccount(devnetKeys.payers[0] as `0x${string}`).address;
      expect(
        await publicClient.readContract({
          address: tokens.DAI.address,
          abi: parseAbi(["function balanceOf(address) view returns (uint256)"]),
          functionName: "balanceOf",
          args: [payer],
        }),
      ).toBeGreaterThan(0n);
    } finally {
      await anvil.stop();
    }
  }, 120_000);
});
