import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi } from "@relay402/client/wire/abis";
import { type Address, encodeAbiParameters, type Hex, pad, parseGwei, toEventSelector, toHex } from "viem";
import { generatePrivateKey } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { adminHeaders, walletDeployment } from "../deploy/support";
import { chainOf, NETWORK_NAMES, tokenBalance } from "../support/chain";
import { type JsonRpcCall, type JsonRpcProxyHooks, jsonRpcProxy } from "../support/json-rpc-proxy";
import { trackServices } from "../support/service";
import { drainWallet } from "../support/wallet";
import {
  deployFundedWallet,
  expectRefusal,
  paymasterDeposit,
  randomAddress,
  settleBody,
  units,
  verifyBody,
} from "./support";

const services = trackServices();
const proxies: ReturnType<typeof jsonRpcProxy>[] = [];
afterAll(() => {
  services.stopAll();
  for (const proxy of proxies) proxy.stop();
});

/** A service whose bundler on `network` is a proxy in front of the devnet's Alto, answering through `hooks`. */
function serviceBehindBundler(network: NetworkName, hooks: JsonRpcProxyHooks, receiptTimeoutMs?: number) {
  const proxy = jsonRpcProxy(chainOf(network).info.bundlerUrl, hooks);
  proxies.push(proxy);
  const service = services.start({}, (config) => {
    const settings = config.networks[network];
    if (!settings) throw new Error(`${network} not configured`);
    settings.bundlerUrl = proxy.url;
    if (receiptTimeoutMs) settings.receiptTimeoutMs = receiptTimeoutMs;
  });
  return { service, proxy };
}

/** A Transfer log as a lying bundler would put it in a receipt. */
function forgedTransfer(token: Address, from: Address, to: Address, amount: bigint) {
  return {
    address: token,
    topics: [
      toEventSelector("event Transfer(address indexed from, address indexed to, uint256 value)"),
      pad(from),
      pad(to),
    ],
    data: encodeAbiParameters([{ type: "uint256" }], [amount]),
    logIndex: "0x0",
  };
}

const isCall = (call: JsonRpcCall, method: string) => call.method === method;

for (const network of NETWORK_NAMES) {
  describe(`${network}: the bundler's word is checked`, () => {
    const c = chainOf(network);

    test("a gas estimate above the caps is refused before the paymaster signs; nothing is issued", async () => {
      const { service } = serviceBehindBundler(network, {
        rewrite(call, answer) {
          if (!isCall(call, "eth_estimateUserOperationGas") || !answer.result) return answer;
          const gas = answer.result as Record<string, Hex>;
          return { result: { ...gas, callGasLimit: toHex(BigInt(gas.callGasLimit as Hex) * 100n) } };
        },
      });
      const { wallet } = await deployFundedWallet(network, units(network, 10n));
      const depositBefore = await paymasterDeposit(network);
      const verified = await service.post(
        "/wallet/verify",
        verifyBody(network, wallet, [{ to: randomAddress(), amount: units(network, 1n) }]),
      );
      expectRefusal(verified, 500, "blockchain_error");
      expect(verified.body.details.reason).toMatch(/callGasLimit .* above the cap of 2000000/);
      expect(verified.body.userOp).toBeUndefined();
      expect(await service.services.wallets.store.recentIssued(network, wallet, "payment", 0)).toEqual([]);
      expect(await paymasterDeposit(network)).toBe(depositBefore);
    });

    test("a fee above the cap is refused before the paymaster signs, at /wallet/verify and /deploy/wallet/verify", async () => {
      const { service } = serviceBehindBundler(network, {
        rewrite(call, answer) {
          if (!isCall(call, "pimlico_getUserOperationGasPrice") || !answer.result) return answer;
          const fee = { maxFeePerGas: toHex(parseGwei("200")), maxPriorityFeePerGas: toHex(parseGwei("100")) };
          return { result: { slow: fee, standard: fee, fast: fee } };
        },
      });
      const { wallet } = await deployFundedWallet(network, units(network, 10n));
      const verified = await service.post(
        "/wallet/verify",
        verifyBody(network, wallet, [{ to: randomAddress(), amount: units(network, 1n) }]),
      );
      expectRefusal(verified, 500, "blockchain_error");
      expect(verified.body.details.reason).toMatch(/maxFeePerGas 200 gwei, above the cap/);
      expect(await service.services.wallets.store.recentIssued(network, wallet, "payment", 0)).toEqual([]);

      const deployVerify = await service.post(
        "/deploy/wallet/verify",
        {
          paymentRequirements: {
            network,
            deployment: {
              ownerAddress: randomAddress(),
              salts: [toHex(crypto.getRandomValues(new Uint8Array(32)))],
              token: c.token.address,
              payerAddress: wallet,
              fundingAmounts: ["0"],
            },
          },
        },
        adminHeaders(service),
      );
      expectRefusal(deployVerify, 500, "blockchain_error");
      expect(await service.services.wallets.store.recentIssued(network, wallet, "deployment", 0)).toEqual([]);
    });

    test("a receipt naming another transaction is no payment: settle reports no success, nothing moved", async () => {
      const { wallet, owner } = await deployFundedWallet(network, units(network, 10n));
      const to = randomAddress();
      const amount = units(network, 2n);
      // A real transaction with a real Transfer, that is not the UserOp's.
      const minter = c.walletFor(generatePrivateKey());
      await c.test.setBalance({ address: minter.account.address, value: 10n ** 18n });
      const otherTx = await minter.writeContract({
        address: c.token.address,
        abi: erc20Abi,
        functionName: "mint",
        args: [randomAddress(), amount],
      });
      const other = await c.public.waitForTransactionReceipt({ hash: otherTx, pollingInterval: 50 });
      const forged = { userOpHash: "0x" as Hex };
      const { service } = serviceBehindBundler(
        network,
        {
          answer(call) {
            // The bundler swallows the UserOp and claims it was mined, with the payment in its receipt.
            if (isCall(call, "eth_sendUserOperation")) return forged.userOpHash;
            if (isCall(call, "eth_getUserOperationReceipt") && call.params?.[0] === forged.userOpHash) {
              const log = forgedTransfer(c.token.address, wallet, to, amount);
              return {
                userOpHash: forged.userOpHash,
                success: true,
                actualGasUsed: "0x1",
                actualGasCost: "0x1",
                logs: [log],
                receipt: { transactionHash: otherTx, blockNumber: toHex(other.blockNumber), logs: [log] },
              };
            }
            return undefined;
          },
        },
        1_500,
      );
      const verified = await service.post("/wallet/verify", verifyBody(network, wallet, [{ to, amount }]));
      expect(verified.status).toBe(200);
      forged.userOpHash = verified.body.userOpHash;
      const depositBefore = await paymasterDeposit(network);

      const settled = await service.post("/wallet/settle", await settleBody(verified.body, owner));
      // Not a success and not an outage: in flight under the UserOp's hash, until the chain shows its execution.
      expect(settled.status).toBe(202);
      expect(settled.body).toMatchObject({ success: false, status: "pending", paymentId: verified.body.userOpHash });
      expect(settled.headers.get("location")).toBe(`/payments/${verified.body.userOpHash}`);
      expect(await tokenBalance(network, c.token.address, to)).toBe(0n);
      expect(await tokenBalance(network, c.token.address, wallet)).toBe(units(network, 10n));
      expect(await paymasterDeposit(network)).toBe(depositBefore);
    });

    test("success: true for a UserOp that reverted is a revert: no payments reported, the owner is counted", async () => {
      const { wallet, owner } = await deployFundedWallet(network, units(network, 10n));
      const to = randomAddress();
      const amount = units(network, 2n);
      const { service } = serviceBehindBundler(network, {
        // The owner empties the wallet after settle's balance check, just before the UserOp reaches the bundler.
        async answer(call) {
          if (isCall(call, "eth_sendUserOperation")) await drainWallet(network, wallet);
          return undefined;
        },
        rewrite(call, answer) {
          if (!isCall(call, "eth_getUserOperationReceipt") || !answer.result) return answer;
          const receipt = answer.result as { logs: unknown[] };
          const log = forgedTransfer(c.token.address, wallet, to, amount);
          return { result: { ...receipt, success: true, logs: [...receipt.logs, log] } };
        },
      });
      const verified = await service.post("/wallet/verify", verifyBody(network, wallet, [{ to, amount }]));
      expect(verified.status).toBe(200);

      const settled = await service.post("/wallet/settle", await settleBody(verified.body, owner));
      expectRefusal(settled, 500, "blockchain_error");
      expect(settled.body.details.status).toBe("reverted");
      expect(settled.body.details.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await tokenBalance(network, c.token.address, to)).toBe(0n);
      // The revert counted once against the owner: the threshold's remaining reverts make it refused.
      const { deny } = service.services;
      for (let i = 1; i < service.config.denyAfterReverts; i++)
        await deny.recordRevert(network, "owner", owner.address, "test");
      expect(await deny.isDenied(network, "owner", owner.address)).toBe(true);
    });

    test("a wallet drained between verify and settle: 400 on balance, nothing sent, and it settles once refilled", async () => {
      const { service } = serviceBehindBundler(network, {});
      const { wallet, owner } = await deployFundedWallet(network, units(network, 10n));
      const to = randomAddress();
      const verified = await service.post(
        "/wallet/verify",
        verifyBody(network, wallet, [{ to, amount: units(network, 2n) }]),
      );
      expect(verified.status).toBe(200);
      await drainWallet(network, wallet);
      const depositBefore = await paymasterDeposit(network);
      const body = await settleBody(verified.body, owner);

      const settled = await service.post("/wallet/settle", body);
      expectRefusal(settled, 400, "validation_error", "balance");
      expect(await paymasterDeposit(network)).toBe(depositBefore);
      expect(await tokenBalance(network, c.token.address, to)).toBe(0n);

      // Nothing was claimed: once the wallet holds the total again, the same UserOp settles.
      const minter = c.walletFor(generatePrivateKey());
      await c.test.setBalance({ address: minter.account.address, value: 10n ** 18n });
      await c.public.waitForTransactionReceipt({
        hash: await minter.writeContract({
          address: c.token.address,
          abi: erc20Abi,
          functionName: "mint",
          args: [wallet, units(network, 10n)],
        }),
        pollingInterval: 50,
      });
      const again = await service.post("/wallet/settle", body);
      expect(again.status).toBe(200);
      expect(again.body.payments[0]).toEqual({ to, amount: units(network, 2n).toString(), token: c.token.address });
      expect(await tokenBalance(network, c.token.address, to)).toBe(units(network, 2n));
    });

    test("/deploy/wallet/settle with a paying wallet drained after verify: 400 on balance, nothing sent or deployed", async () => {
      const { service } = serviceBehindBundler(network, {});
      const deployment = await walletDeployment(service, network, [units(network, 1n)]);
      await drainWallet(network, deployment.payer);
      const depositBefore = await paymasterDeposit(network);

      const settled = await service.post("/deploy/wallet/settle", deployment.body, adminHeaders(service));
      expectRefusal(settled, 400, "validation_error", "balance");
      expect(await paymasterDeposit(network)).toBe(depositBefore);
      expect(await c.public.getCode({ address: deployment.wallets[0]!.address })).toBeUndefined();
    });

    test("/deploy/wallet/settle: a fee UserOp that reverted is not a paid fee, whatever the bundler's receipt says", async () => {
      let payer: Address | undefined;
      const { service } = serviceBehindBundler(network, {
        async answer(call) {
          if (isCall(call, "eth_sendUserOperation") && payer) await drainWallet(network, payer);
          return undefined;
        },
        rewrite(call, answer) {
          if (!isCall(call, "eth_getUserOperationReceipt") || !answer.result) return answer;
          return { result: { ...(answer.result as object), success: true } };
        },
      });
      const deployment = await walletDeployment(service, network, [0n]);
      payer = deployment.payer;

      const settled = await service.post("/deploy/wallet/settle", deployment.body, adminHeaders(service));
      expect(settled.status).not.toBe(200);
      expect(settled.body.code).toBe("payment_settlement_error");
      expect(await c.public.getCode({ address: deployment.wallets[0]!.address })).toBeUndefined();
    });
  });
}
