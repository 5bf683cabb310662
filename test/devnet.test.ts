import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { entryPointAbi, erc20Abi, relayerAbi } from "@relay402/client/wire/abis";
import { encodeBatchExecution } from "@relay402/client/wire/execution";
import { toRpcUserOp, userOpHash } from "@relay402/client/wire/user-operation";
import { type Address, encodeFunctionData, type Hex, parseAbi, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devnetKeys } from "../scripts/devnet/keys";
import { acquireLock } from "../scripts/devnet/lock";
import { ENTRY_POINT_V07 } from "../src/chain/addresses";
import { presetOf } from "../src/networks";
import { BundlerError, createBundler, waitForUserOpReceipt } from "../src/userops/bundler";
import { buildSponsoredUserOp } from "../src/userops/sponsor";
import { signedPayment, transferArgs } from "./support/authorization";
import { chainOf, freshPayer, NETWORK_NAMES, tokenBalance } from "./support/chain";
import { getTestDevnet } from "./support/devnet";
import { deployFundedWallet } from "./support/wallet";

const ownable2StepAbi = parseAbi([
  "function owner() view returns (address)",
  "function pendingOwner() view returns (address)",
]);

describe("devnet", () => {
  test("starts both chains with every contract at the same address and writes the manifest", async () => {
    const { devnet, startupMs } = getTestDevnet();
    console.log(`devnet startup: ${(startupMs / 1000).toFixed(1)} s`);
    const manifest = JSON.parse(readFileSync(devnet.manifestPath, "utf8"));
    expect(manifest.adminApiKey).toBeString();
    expect(manifest.accounts.length).toBeGreaterThan(0);
    expect(manifest.networks.bsc.chainId).toBe(56);
    expect(manifest.networks.base.chainId).toBe(8453);
    expect(manifest.networks.bsc.tokens.USDT).toMatchObject({ decimals: 18, eip3009: false });
    expect(manifest.networks.base.tokens.USDC).toMatchObject({ decimals: 6, eip3009: true });
    // One token of each kind on each network, the manifest saying which is which.
    for (const network of NETWORK_NAMES) {
      const kinds = Object.fromEntries(
        Object.entries(manifest.networks[network].tokens as Record<string, { kind: string }>).map(([symbol, t]) => [
          symbol,
          t.kind,
        ]),
      );
      expect(kinds).toMatchObject({ USDC: "eip3009", PUSD: "eip2612", USDT: "plain" });
    }
    for (const field of ["entryPoint", "relayer", "factory", "accountImplementation", "paymaster"]) {
      expect(manifest.networks.bsc[field]).toBe(manifest.networks.base[field]);
    }
    for (const network of NETWORK_NAMES) {
      const c = chainOf(network);
      expect(await c.public.getChainId()).toBe(c.info.chainId);
      for (const address of [c.info.entryPoint, c.info.relayer, c.info.factory, c.info.paymaster, c.token.address]) {
        expect((await c.public.getCode({ address }))?.length ?? 0).toBeGreaterThan(2);
      }
      expect(c.info.entryPoint).toBe(ENTRY_POINT_V07);
      expect(
        await c.public.readContract({
          address: c.info.relayer,
          abi: relayerAbi,
          functionName: "isTokenWhitelisted",
          args: [c.token.address],
        }),
      ).toBe(true);
      const deposit = await c.public.readContract({
        address: ENTRY_POINT_V07,
        abi: entryPointAbi,
        functionName: "balanceOf",
        args: [c.info.paymaster],
      });
      expect(deposit).toBeGreaterThan(0n);
      // Ownable2Step: the deploying key owns both contracts at once, with no handover pending.
      for (const address of [c.info.relayer, c.info.paymaster]) {
        const [owner, pending] = await Promise.all(
          (["owner", "pendingOwner"] as const).map((functionName) =>
            c.public.readContract({ address, abi: ownable2StepAbi, functionName }),
          ),
        );
        expect(owner).toBe(privateKeyToAccount(devnetKeys.owner).address);
        expect(pending).toBe("0x0000000000000000000000000000000000000000");
      }
      const payer = manifest.accounts[0].address as Address;
      expect(await tokenBalance(network, c.token.address, payer)).toBeGreaterThan(0n);
      expect(await c.public.getBalance({ address: payer })).toBeGreaterThan(0n);
    }
  });

  test("a second start from the same folder fails with a clear message", () => {
    expect(() => acquireLock(getTestDevnet().dir)).toThrow(/already running/);
    expect(existsSync(`${getTestDevnet().dir}/devnet.lock`)).toBe(true);
  });

  for (const network of NETWORK_NAMES) {
    test(`${network}: an EOA payment through the relayer moves tokens`, async () => {
      const c = chainOf(network);
      const payer = await freshPayer(network);
      const recipient = privateKeyToAccount(toHex(crypto.getRandomValues(new Uint8Array(32)))).address;
      const value = 5n * 10n ** BigInt(c.token.decimals);
      const payerWallet = c.walletFor(payer.key);
      await c.public.waitForTransactionReceipt({
        hash: await payerWallet.writeContract({
          address: c.token.address,
          abi: erc20Abi,
          functionName: "approve",
          args: [c.info.relayer, value],
        }),
      });
      const body = await signedPayment({ network, key: payer.key, to: recipient, value });
      // Anyone may submit it; here a devnet executor key does, as the service will.
      const executor = c.walletFor(devnetKeys.executors[7] as Hex);
      const hash = await executor.writeContract({
        address: c.info.relayer,
        abi: relayerAbi,
        functionName: "transferWithAuthorization",
        args: transferArgs(body),
      });
      const receipt = await c.public.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      expect(await tokenBalance(network, c.token.address, recipient)).toBe(value);
    });
  }

  describe("smart wallet through Alto", () => {
    const network = "bsc" as const;

    async function deployWallet() {
      const { owner, wallet } = await deployFundedWallet(network, 10n ** 21n);
      return { c: chainOf(network), owner, wallet };
    }

    function paymentCallData(c: ReturnType<typeof chainOf>, recipient: Address, amount: bigint) {
      const fee = amount / 100n;
      return encodeBatchExecution([
        {
          to: c.token.address,
          data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [c.info.relayer, amount + fee] }),
        },
        {
          to: c.info.relayer,
          data: encodeFunctionData({
            abi: relayerAbi,
            functionName: "payBatch",
            args: [c.token.address, [recipient, c.info.feeRecipient], [amount, fee]],
          }),
        },
      ]);
    }

    test("a factory-deployed wallet sends a paymaster-sponsored UserOp through Alto and it is mined", async () => {
      const { c, owner, wallet } = await deployWallet();
      expect(await c.public.getBalance({ address: wallet })).toBe(0n);
      const recipient = privateKeyToAccount(toHex(crypto.getRandomValues(new Uint8Array(32)))).address;
      const bundler = createBundler(c.info.bundlerUrl, ENTRY_POINT_V07);
      const nonce = await c.public.readContract({
        address: ENTRY_POINT_V07,
        abi: entryPointAbi,
        functionName: "getNonce",
        args: [wallet, 0n],
      });
      const { userOp } = await buildSponsoredUserOp(
        { sender: wallet, nonce, callData: paymentCallData(c, recipient, 10n ** 18n) },
        {
          bundler,
          chainId: c.info.chainId,
          paymaster: c.info.paymaster,
          paymasterSigner: privateKeyToAccount(devnetKeys.paymasterSigner),
          validitySeconds: 600,
          caps: presetOf(network).userOpCaps,
        },
      );
      const hash = userOpHash(userOp, c.info.chainId, ENTRY_POINT_V07);
      userOp.signature = await owner.signMessage({ message: { raw: hash } });
      const depositBefore = await c.public.readContract({
        address: ENTRY_POINT_V07,
        abi: entryPointAbi,
        functionName: "balanceOf",
        args: [c.info.paymaster],
      });
      expect(await bundler.send(toRpcUserOp(userOp))).toBe(hash);
      const receipt = await waitForUserOpReceipt(bundler, hash, 20_000);
      expect(receipt?.success).toBe(true);
      console.log(`smart-wallet payment UserOp actualGasUsed: ${receipt?.actualGasUsed}`);
      expect(await tokenBalance(network, c.token.address, recipient)).toBe(10n ** 18n);
      expect(await c.public.getBalance({ address: wallet })).toBe(0n);
      const depositAfter = await c.public.readContract({
        address: ENTRY_POINT_V07,
        abi: entryPointAbi,
        functionName: "balanceOf",
        args: [c.info.paymaster],
      });
      expect(depositAfter).toBeLessThan(depositBefore);
    });

    test("a UserOp with a bad paymaster signature is rejected by the bundler", async () => {
      const { c, owner, wallet } = await deployWallet();
      const bundler = createBundler(c.info.bundlerUrl, ENTRY_POINT_V07);
      const nonce = await c.public.readContract({
        address: ENTRY_POINT_V07,
        abi: entryPointAbi,
        functionName: "getNonce",
        args: [wallet, 0n],
      });
      const { userOp } = await buildSponsoredUserOp(
        { sender: wallet, nonce, callData: paymentCallData(c, owner.address, 10n ** 18n) },
        // Signed by a key that is not the paymaster's signer.
        {
          bundler,
          chainId: c.info.chainId,
          paymaster: c.info.paymaster,
          paymasterSigner: privateKeyToAccount(devnetKeys.payers[0] as Hex),
          validitySeconds: 600,
          caps: presetOf(network).userOpCaps,
        },
      );
      userOp.signature = await owner.signMessage({
        message: { raw: userOpHash(userOp, c.info.chainId, ENTRY_POINT_V07) },
      });
      const error = await bundler.send(toRpcUserOp(userOp)).catch((e) => e);
      expect(error).toBeInstanceOf(BundlerError);
      expect(String((error as Error).message)).toMatch(/AA34|signature/i);
    });
  });
});
