// A UserOp flow's settle whose UserOp is not mined in time answers 202 under the userOpHash, never a 5xx, and a
// later settle of the same body names the transaction once it lands: /wallet/swap/settle, /wallet/incognito/settle
// and /deploy/wallet/settle (test/wallets/bundler-trust.test.ts covers /wallet/settle). The bundler in front of
// Alto swallows the first send (a bundler that lost the UserOp), so nothing is mined; the next settle re-sends the
// same UserOp, which executes once. The chain judges: balances and the paying wallet's EntryPoint nonce.
//
// One network per route, alternating, to keep the file cheap: every route runs the same kernel
// (sendIssuedUserOp) on both networks, and each flow's own setup (a DEX route, a shield, a deployment batch) is
// what these tests add. Swaps and deployments run on base, the shield on bsc.
import { afterAll, describe, expect, test } from "bun:test";
import { fieldToHex, newNote, noteCommitment } from "@relay402/client/wire/incognito/notes";
import type { Address, Hex } from "viem";
import type { NetworkName } from "../../scripts/devnet/start";
import { adminHeaders, entryPointNonce, walletDeployment } from "../deploy/support";
import { chainOf, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { swapTokensOf } from "../support/dex";
import { body as incognitoBody, incognitoNetwork, shieldData } from "../support/incognito-service";
import { jsonRpcProxy } from "../support/json-rpc-proxy";
import { startTestService } from "../support/service";
import { verifyBody as swapVerifyBody, walletHolding } from "../swap/wallet-swap-support";
import { deployFundedWallet, settleBody, units } from "../wallets/support";

/** Per network: while `swallowing` is set, the bundler answers eth_sendUserOperation with it and sends nothing. */
const stalls = Object.fromEntries(NETWORK_NAMES.map((network) => [network, { swallowing: null as Hex | null }]));
const proxies = NETWORK_NAMES.map((network) =>
  jsonRpcProxy(chainOf(network).info.bundlerUrl, {
    answer: (call) =>
      call.method === "eth_sendUserOperation" ? (stalls[network]?.swallowing ?? undefined) : undefined,
  }),
);
const service = startTestService({}, (config) => {
  for (const [index, network] of NETWORK_NAMES.entries()) {
    const settings = config.networks[network];
    if (!settings) throw new Error(`${network} not configured`);
    settings.bundlerUrl = (proxies[index] as (typeof proxies)[number]).url;
    settings.receiptTimeoutMs = 1_500;
  }
});
afterAll(() => {
  service.stop();
  for (const proxy of proxies) proxy.stop();
});

type Answer = Awaited<ReturnType<typeof service.post>>;

/** Settles `body` on `path` with the bundler swallowing the UserOp `hash`: the answer must be the 202 of it. */
async function settleWhileSwallowed(
  network: NetworkName,
  path: string,
  body: unknown,
  hash: Hex,
  payer: Address,
  headers?: Record<string, string>,
): Promise<Answer> {
  const stall = stalls[network] as { swallowing: Hex | null };
  stall.swallowing = hash;
  let pending: Answer;
  try {
    pending = await service.post(path, body, headers);
  } finally {
    stall.swallowing = null;
  }
  expect(pending.status).toBe(202);
  expect(pending.body).toMatchObject({ success: false, status: "pending", paymentId: hash, network, payer });
  expect(pending.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
  expect(pending.headers.get("location")).toBe(`/payments/${hash}`);
  return pending;
}

/** The settle after the stall: 200 (the UserOp re-sent and mined), and a repeat answers the same body. */
async function settleOnceLanded(path: string, body: unknown, headers?: Record<string, string>) {
  const done = await service.post(path, body, headers);
  expect(done.status).toBe(200);
  const again = await service.post(path, body, headers);
  expect(again.body).toEqual(done.body);
  return done.body;
}

async function expectMined(network: NetworkName, transaction: Hex) {
  const receipt = await chainOf(network).public.getTransactionReceipt({ hash: transaction });
  expect(receipt.status).toBe("success");
}

describe("a UserOp flow's settle with no receipt in time answers 202, then the one transaction", () => {
  test("/wallet/swap/settle (base): 202 under the userOpHash, then the swap, executed once", async () => {
    const network = "base";
    const t = swapTokensOf(network);
    const sellAmount = 40n * t.unit;
    const { owner, wallet } = await walletHolding(network, t.m, sellAmount);
    const recipient = randomAddress();
    const verified = await service.post(
      "/wallet/swap/verify",
      swapVerifyBody(network, wallet, { sellToken: t.m, buyToken: t.w, sellAmount, recipient }),
    );
    expect(verified.status).toBe(200);
    const hash = verified.body.userOpHash as Hex;
    const body = await settleBody(verified.body, owner);
    const nonceBefore = await entryPointNonce(network, wallet);

    await settleWhileSwallowed(network, "/wallet/swap/settle", body, hash, wallet);
    expect(await tokenBalance(network, t.m, wallet)).toBe(sellAmount);
    expect(await tokenBalance(network, t.w, recipient)).toBe(0n);

    const settled = await settleOnceLanded("/wallet/swap/settle", body);
    expect(settled).toMatchObject({ success: true, paymentId: hash, userOpHash: hash });
    await expectMined(network, settled.txHash);
    expect(await entryPointNonce(network, wallet)).toBe(nonceBefore + 1n);
    expect(await tokenBalance(network, t.m, wallet)).toBe(0n);
    expect(await tokenBalance(network, t.w, recipient)).toBe(BigInt(settled.swap.buyAmount));
    const located = await service.get(`/payments/${hash}`);
    expect(located.status).toBe(200);
    expect(located.body).toMatchObject({ paymentId: hash, transaction: settled.txHash });
  }, 60_000);

  test("/wallet/incognito/settle (bsc): a shield answers 202 under the userOpHash, then lands in the pool once", async () => {
    const network = "bsc";
    const { token, pool, balance } = incognitoNetwork(network);
    const note = newNote(token, units(network, 10n));
    const { owner, wallet } = await deployFundedWallet(network, units(network, 20n));
    const verified = await service.post("/wallet/incognito/verify", incognitoBody(network, wallet, shieldData(note)));
    expect(verified.status).toBe(200);
    const hash = verified.body.userOpHash as Hex;
    const total = BigInt(verified.body.totalAmount);
    const body = await settleBody(verified.body, owner);
    const [walletBefore, poolBefore] = await Promise.all([balance(wallet), balance(pool)]);
    const nonceBefore = await entryPointNonce(network, wallet);

    await settleWhileSwallowed(network, "/wallet/incognito/settle", body, hash, wallet);
    expect(await balance(pool)).toBe(poolBefore);

    const settled = await settleOnceLanded("/wallet/incognito/settle", body);
    expect(settled).toMatchObject({ success: true, paymentId: hash });
    expect(settled.incognito.commitment).toBe(fieldToHex(noteCommitment(note)));
    await expectMined(network, settled.txHash);
    expect(await entryPointNonce(network, wallet)).toBe(nonceBefore + 1n);
    expect(await balance(wallet)).toBe(walletBefore - total);
    expect(await balance(pool)).toBe(poolBefore + note.amount);
    const located = await service.get(`/payments/${hash}`);
    expect(located.status).toBe(200);
    expect(located.body).toMatchObject({ paymentId: hash, transaction: settled.txHash });
  }, 60_000);

  test("/deploy/wallet/settle (base): a fee UserOp in flight answers 202 under its hash, then one fee and the wallet", async () => {
    const network = "base";
    const c = chainOf(network);
    const funding = units(network, 1n);
    const deployment = await walletDeployment(service, network, [funding]);
    const admin = adminHeaders(service);
    const feeBefore = await tokenBalance(network, c.token.address, c.info.feeRecipient);
    const payerBefore = await tokenBalance(network, c.token.address, deployment.payer);
    const nonceBefore = await entryPointNonce(network, deployment.payer);

    await settleWhileSwallowed(
      network,
      "/deploy/wallet/settle",
      deployment.body,
      deployment.hash,
      deployment.payer,
      admin,
    );
    expect(await tokenBalance(network, c.token.address, deployment.payer)).toBe(payerBefore);

    const settled = await settleOnceLanded("/deploy/wallet/settle", deployment.body, admin);
    expect(settled).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, paymentId: deployment.hash });
    await expectMined(network, settled.paymentTxHash);
    const located = await service.get(`/payments/${deployment.hash}`);
    expect(located.status).toBe(200);
    expect(located.body).toMatchObject({ paymentId: deployment.hash, transaction: settled.paymentTxHash });
    expect(await entryPointNonce(network, deployment.payer)).toBe(nonceBefore + 1n);
    expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(feeBefore + deployment.fee);
    expect(await tokenBalance(network, c.token.address, deployment.payer)).toBe(payerBefore - deployment.total);
    const wallet = (deployment.wallets[0] as { address: Address }).address;
    expect(((await c.public.getCode({ address: wallet })) ?? "0x") !== "0x").toBe(true);
    expect(await tokenBalance(network, c.token.address, wallet)).toBe(funding);
  }, 60_000);
});
