// The events of the UserOp flows a wallet signs: smart-wallet payments (/wallet/settle) and wallet swaps
// (/wallet/swap/settle), for each way a settle ends: success; pending (the bundler lost the UserOp) then success;
// a UserOp that reverts on-chain; a UserOp whose nonce another UserOp of the wallet used first. The receiver gets
// exactly the documented events under the userOpHash, each carrying the lookup's record, and the record is the
// chain's: the bundle's receipt, the EntryPoint's UserOperationEvent, the balances. Real devnet, bundler and SQLite.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Hex } from "viem";
import { entryPointNonce } from "../deploy/support";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { swapTokensOf } from "../support/dex";
import { createTestDatabase } from "../support/postgres";
import { deployFundedWallet, drainWallet } from "../support/wallet";
import { verifyBody as swapVerifyBody, walletHolding } from "../swap/wallet-swap-support";
import { settleBody, units, verifyBody } from "../wallets/support";
import {
  type EventService,
  eventOf,
  eventTestbed,
  expectExactlyEvents,
  expectUserOpRecordOnChain,
  settleSwallowed,
  type Testbed,
} from "./events-userops-support";

const testbed = eventTestbed();
afterAll(() => testbed.stop());
/** Every ending but the pending one: payment.pending only after a minute, so a slow settle never raises it. */
const prompt = testbed.start();
/** A UserOp without a receipt after 1.5 s answers 202, and payment.pending follows a second after its send. */
const slow = testbed.start({ pendingAfterSeconds: 1, receiptTimeoutMs: 1_500 });

/** A wallet holding 10 tokens, a payment of 2 to a fresh address verified on `service`, and its signed settle body. */
async function walletPayment(service: EventService, network: "bsc" | "base") {
  const { owner, wallet } = await deployFundedWallet(network, units(network, 10n));
  const to = randomAddress();
  const amount = units(network, 2n);
  const verified = await service.post("/wallet/verify", verifyBody(network, wallet, [{ to, amount }]));
  expect(verified.status).toBe(200);
  const hash = verified.body.userOpHash as Hex;
  return { owner, wallet, to, amount, verified: verified.body, hash, body: await settleBody(verified.body, owner) };
}

describe("/wallet/settle: the events of each ending", () => {
  test("bsc, success: payment.settled once, its record the UserOp's receipt; the payee got the amount", async () => {
    const network = "bsc";
    const payment = await walletPayment(prompt.service, network);
    const settled = await prompt.service.post("/wallet/settle", payment.body);
    expect(settled.status).toBe(200);

    const record = await expectExactlyEvents(prompt, payment.hash, ["payment.settled"]);
    expect(record).toMatchObject({
      status: "settled",
      flow: "smart-wallet",
      payer: payment.wallet,
      payees: [payment.to],
      // What left the wallet: the transfers and the fee.
      amount: (payment.amount + BigInt(payment.verified.feeAmount)).toString(),
      fee: payment.verified.feeAmount,
      transaction: settled.body.txHash,
      failureReason: null,
    });
    const event = await expectUserOpRecordOnChain(prompt, network, payment.hash, record);
    expect(event.success).toBe(true);
    expect(await tokenBalance(network, record.token, payment.to)).toBe(payment.amount);
  }, 60_000);

  test("base, pending then success: payment.pending while the bundler lost it, then payment.settled", async () => {
    const network = "base";
    const payment = await walletPayment(slow.service, network);
    await settleSwallowed(
      testbed.stalls[network],
      () => slow.service.post("/wallet/settle", payment.body),
      payment.hash,
    );

    const pending = await eventOf(slow, "payment.pending", payment.hash);
    expect(pending).toMatchObject({ status: "pending", transaction: null, block: null, failureReason: null });
    expect(pending.sentAt).toBeString();
    expect(await tokenBalance(network, chainOf(network).token.address, payment.to)).toBe(0n);

    const settled = await slow.service.post("/wallet/settle", payment.body);
    expect(settled.status).toBe(200);
    const record = await expectExactlyEvents(slow, payment.hash, ["payment.pending", "payment.settled"]);
    // The pending event said what the record said then: the same payment, not concluded yet.
    expect({ ...record, status: "pending", transaction: null, block: null }).toMatchObject({
      ...pending,
      gasUsed: record.gasUsed,
      effectiveGasPrice: record.effectiveGasPrice,
      minedAt: record.minedAt,
    });
    expect(record).toMatchObject({ status: "settled", transaction: settled.body.txHash });
    await expectUserOpRecordOnChain(slow, network, payment.hash, record);
    expect(await tokenBalance(network, record.token, payment.to)).toBe(payment.amount);
  }, 60_000);

  test("bsc, a UserOp that reverts on-chain (the wallet emptied as it is sent): payment.failed, paid for by the paymaster", async () => {
    const network = "bsc";
    const payment = await walletPayment(prompt.service, network);
    testbed.stalls[network].beforeSend = () => drainWallet(network, payment.wallet);
    const settled = await prompt.service.post("/wallet/settle", payment.body);
    expect(settled.status).toBe(500);
    expect(settled.body.details).toMatchObject({ status: "reverted", paymentId: payment.hash });

    const record = await expectExactlyEvents(prompt, payment.hash, ["payment.failed"]);
    expect(record).toMatchObject({ status: "failed", transaction: settled.body.details.txHash });
    expect(record.failureReason).toBe("blockchain_error");
    const event = await expectUserOpRecordOnChain(prompt, network, payment.hash, record);
    expect(event.success).toBe(false);
    expect(await tokenBalance(network, record.token, payment.to)).toBe(0n);
  }, 60_000);

  test("base, its nonce used first by another UserOp of the wallet: payment.settled for that one, payment.failed for this", async () => {
    const network = "base";
    const first = await walletPayment(prompt.service, network);
    const other = randomAddress();
    const second = await prompt.service.post(
      "/wallet/verify",
      verifyBody(network, first.wallet, [{ to: other, amount: units(network, 3n) }]),
    );
    expect(second.body.userOp.nonce).toBe(first.verified.userOp.nonce);
    const nonceBefore = await entryPointNonce(network, first.wallet);
    expect((await prompt.service.post("/wallet/settle", await settleBody(second.body, first.owner))).status).toBe(200);
    const refused = await prompt.service.post("/wallet/settle", first.body);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("userop_error");

    await expectExactlyEvents(prompt, second.body.userOpHash, ["payment.settled"]);
    const record = await expectExactlyEvents(prompt, first.hash, ["payment.failed"]);
    expect(record).toMatchObject({
      status: "failed",
      transaction: null,
      block: null,
      gasUsed: null,
      failureReason: "userop_error",
    });
    // The chain: one UserOp of the wallet executed, the other's payee got nothing.
    expect(await entryPointNonce(network, first.wallet)).toBe(nonceBefore + 1n);
    expect(await tokenBalance(network, record.token, first.to)).toBe(0n);
    expect(await tokenBalance(network, record.token, other)).toBe(units(network, 3n));
  }, 60_000);
});

/** A wallet holding 40 M, a swap of it to W for a fresh recipient verified on `service`, and its settle body. */
async function walletSwap(service: EventService, network: "bsc" | "base") {
  const t = swapTokensOf(network);
  const sellAmount = 40n * t.unit;
  const { owner, wallet } = await walletHolding(network, t.m, sellAmount);
  const recipient = randomAddress();
  const verified = await service.post(
    "/wallet/swap/verify",
    swapVerifyBody(network, wallet, { sellToken: t.m, buyToken: t.w, sellAmount, recipient }),
  );
  expect(verified.status).toBe(200);
  expect(verified.body.isValid).toBe(true);
  const hash = verified.body.userOpHash as Hex;
  return { t, owner, wallet, recipient, sellAmount, hash, body: await settleBody(verified.body, owner) };
}

describe("/wallet/swap/settle: the events of each ending", () => {
  test("base, success: payment.settled once, its record the UserOp's receipt; the recipient got buyAmount", async () => {
    const network = "base";
    const swap = await walletSwap(prompt.service, network);
    const settled = await prompt.service.post("/wallet/swap/settle", swap.body);
    expect(settled.status).toBe(200);

    const record = await expectExactlyEvents(prompt, swap.hash, ["payment.settled"]);
    expect(record).toMatchObject({
      status: "settled",
      flow: "swap",
      payer: swap.wallet,
      token: swap.t.m,
      amount: swap.sellAmount.toString(),
      payee: swap.recipient,
      transaction: settled.body.txHash,
    });
    await expectUserOpRecordOnChain(prompt, network, swap.hash, record);
    expect(await tokenBalance(network, swap.t.m, swap.wallet)).toBe(0n);
    expect(await tokenBalance(network, swap.t.w, swap.recipient)).toBe(BigInt(settled.body.swap.buyAmount));
  }, 60_000);

  test("bsc, pending then success: payment.pending, then payment.settled", async () => {
    const network = "bsc";
    const swap = await walletSwap(slow.service, network);
    await settleSwallowed(
      testbed.stalls[network],
      () => slow.service.post("/wallet/swap/settle", swap.body),
      swap.hash,
    );
    const pending = await eventOf(slow, "payment.pending", swap.hash);
    expect(pending).toMatchObject({ status: "pending", flow: "swap", transaction: null });
    expect(await tokenBalance(network, swap.t.m, swap.wallet)).toBe(swap.sellAmount);

    const settled = await slow.service.post("/wallet/swap/settle", swap.body);
    expect(settled.status).toBe(200);
    const record = await expectExactlyEvents(slow, swap.hash, ["payment.pending", "payment.settled"]);
    expect(record).toMatchObject({ status: "settled", transaction: settled.body.txHash, sentAt: pending.sentAt });
    await expectUserOpRecordOnChain(slow, network, swap.hash, record);
    expect(await tokenBalance(network, swap.t.w, swap.recipient)).toBe(BigInt(settled.body.swap.buyAmount));
  }, 60_000);

  test("base, a swap that reverts on-chain (the wallet emptied as it is sent): payment.failed, the recipient got nothing", async () => {
    const network = "base";
    const swap = await walletSwap(prompt.service, network);
    testbed.stalls[network].beforeSend = () => drainWallet(network, swap.wallet);
    const settled = await prompt.service.post("/wallet/swap/settle", swap.body);
    expect(settled.status).toBe(500);
    expect(settled.body.details).toMatchObject({ status: "reverted", paymentId: swap.hash });

    const record = await expectExactlyEvents(prompt, swap.hash, ["payment.failed"]);
    expect(record).toMatchObject({ status: "failed", transaction: settled.body.details.txHash });
    const event = await expectUserOpRecordOnChain(prompt, network, swap.hash, record);
    expect(event.success).toBe(false);
    expect(await tokenBalance(network, swap.t.w, swap.recipient)).toBe(0n);
  }, 60_000);
});

describe("on PostgreSQL: the same events from the twin's triggers", () => {
  let onPostgres: Testbed;
  let slowOnPostgres: Testbed;
  beforeAll(async () => {
    // A database each: instances on one database share its outbox and would deliver to either's receiver.
    onPostgres = await testbed.startOnPostgres(await createTestDatabase("userop_events"));
    slowOnPostgres = await testbed.startOnPostgres(await createTestDatabase("userop_events_slow"), {
      pendingAfterSeconds: 1,
      receiptTimeoutMs: 1_500,
    });
  });

  test("bsc, /wallet/settle pending then success: payment.pending, then payment.settled, the record the receipt's", async () => {
    const network = "bsc";
    const payment = await walletPayment(slowOnPostgres.service, network);
    const settle = () => slowOnPostgres.service.post("/wallet/settle", payment.body);
    await settleSwallowed(testbed.stalls[network], settle, payment.hash);
    expect(await eventOf(slowOnPostgres, "payment.pending", payment.hash)).toMatchObject({ status: "pending" });

    expect((await settle()).status).toBe(200);
    const record = await expectExactlyEvents(slowOnPostgres, payment.hash, ["payment.pending", "payment.settled"]);
    await expectUserOpRecordOnChain(slowOnPostgres, network, payment.hash, record);
    expect(await tokenBalance(network, record.token, payment.to)).toBe(payment.amount);
  }, 60_000);

  test("base, /wallet/swap/settle reverting on-chain: payment.failed", async () => {
    const network = "base";
    const swap = await walletSwap(onPostgres.service, network);
    testbed.stalls[network].beforeSend = () => drainWallet(network, swap.wallet);
    const settled = await onPostgres.service.post("/wallet/swap/settle", swap.body);
    expect(settled.status).toBe(500);

    const record = await expectExactlyEvents(onPostgres, swap.hash, ["payment.failed"]);
    const event = await expectUserOpRecordOnChain(onPostgres, network, swap.hash, record);
    expect(event.success).toBe(false);
    expect(await tokenBalance(network, swap.t.w, swap.recipient)).toBe(0n);
  }, 60_000);
});
