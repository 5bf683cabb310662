// A UserOp whose settle answered 202 and that nobody settles again still concludes: the kernel's sweep
// (src/userops/in-flight.ts) finds its execution on the chain and stores what its settle would have answered, so
// the lookup, the webhooks and a later settle of the same body all give the final result. Here the bundler behind
// the service swallows the UserOp (the settle answers 202), and the wallet's owner then sends the same signed
// UserOp to the bundler itself: nobody calls settle again. Real devnet, Alto, SQLite; the chain judges.
import { afterAll, describe, expect, test } from "bun:test";
import type { Hex } from "viem";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { until } from "../support/until";
import { deployFundedWallet, drainWallet } from "../support/wallet";
import { settleBody, units, verifyBody } from "../wallets/support";
import {
  eventTestbed,
  expectExactlyEvents,
  expectUserOpRecordOnChain,
  settleSwallowed,
} from "../webhooks/events-userops-support";

const testbed = eventTestbed();
afterAll(() => testbed.stop());
/** Gives up waiting for a receipt after 1.5 s (a 202), and raises payment.pending only after a minute. */
const slow = testbed.start({ receiptTimeoutMs: 1_500 });

/** The signed UserOp sent straight to the devnet's bundler, as its owner may do after a 202. */
async function sendToBundler(network: "bsc" | "base", userOp: Record<string, string>) {
  const c = chainOf(network);
  const response = await fetch(c.info.bundlerUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "eth_sendUserOperation",
      params: [userOp, c.info.entryPoint],
    }),
  });
  const answer = (await response.json()) as { result?: Hex; error?: unknown };
  if (!answer.result) throw new Error(`the bundler refused the UserOp: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

async function swallowedPayment(network: "bsc" | "base") {
  const { owner, wallet } = await deployFundedWallet(network, units(network, 10n));
  const to = randomAddress();
  const amount = units(network, 2n);
  const verified = await slow.service.post("/wallet/verify", verifyBody(network, wallet, [{ to, amount }]));
  expect(verified.status).toBe(200);
  const hash = verified.body.userOpHash as Hex;
  const body = await settleBody(verified.body, owner);
  await settleSwallowed(testbed.stalls[network], () => slow.service.post("/wallet/settle", body), hash);
  return { wallet, to, amount, hash, body };
}

const statusOf = async (hash: Hex) => (await slow.service.get(`/payments/${hash}`)).body.status as string;

describe("a UserOp left in flight after a 202", () => {
  test("bsc: it executes without another settle; the lookup and payment.settled follow, and a repeat answers it", async () => {
    const network = "bsc";
    const payment = await swallowedPayment(network);
    expect(await statusOf(payment.hash)).toBe("pending");
    expect(await sendToBundler(network, payment.body.userOp)).toBe(payment.hash);

    await until("the sweep concludes the UserOp", async () => (await statusOf(payment.hash)) === "settled", {
      timeoutMs: 30_000,
    });
    const record = await expectExactlyEvents(slow, payment.hash, ["payment.settled"]);
    const event = await expectUserOpRecordOnChain(slow, network, payment.hash, record);
    expect(event.success).toBe(true);
    expect(await tokenBalance(network, record.token, payment.to)).toBe(payment.amount);
    // The settle the client never made gives what the sweep stored: the same transaction, sent once.
    const repeat = await slow.service.post("/wallet/settle", payment.body);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ paymentId: payment.hash, txHash: record.transaction });
  }, 90_000);

  test("base: it executes and reverts; payment.failed follows, and a repeat answers the revert", async () => {
    const network = "base";
    const payment = await swallowedPayment(network);
    await drainWallet(network, payment.wallet);
    expect(await sendToBundler(network, payment.body.userOp)).toBe(payment.hash);

    await until("the sweep concludes the UserOp", async () => (await statusOf(payment.hash)) === "failed", {
      timeoutMs: 30_000,
    });
    const record = await expectExactlyEvents(slow, payment.hash, ["payment.failed"]);
    const event = await expectUserOpRecordOnChain(slow, network, payment.hash, record);
    expect(event.success).toBe(false);
    expect(await tokenBalance(network, chainOf(network).token.address, payment.to)).toBe(0n);
    const repeat = await slow.service.post("/wallet/settle", payment.body);
    expect(repeat.status).toBe(500);
    expect(repeat.body.details).toMatchObject({
      status: "reverted",
      paymentId: payment.hash,
      txHash: record.transaction,
    });
  }, 90_000);
});
