// Concurrent duplicates of one signed body, raced on one or several instances (concurrent-duplicates-sqlite.test.ts,
// concurrent-duplicates-postgres.test.ts): a relay402 body (/settle, /swap/settle) answers 200 or 202 and never a
// 5xx; an x402 body answers 200 with one success and invalid_exact_evm_nonce_already_used for the others, or under a
// payment identifier the first result everywhere. Exactly one transaction is sent (the executors' nonces), the final
// answer names it, and the receiver gets exactly one payment.settled of the payment. The chain judges.
import { expect } from "bun:test";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { readyPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress, tokenBalance, withBlocksStopped } from "../support/chain";
import { mToWQuoteBody, signQuotedSwap, swapTokensOf } from "../support/dex";
import type { startWebhookReceiver } from "../support/webhook-receiver";
import { freshId, withIdentifier } from "../x402/payment-identifier-support";
import { expectEvents, X402_EXACT, x402Body } from "./events-support";

export type Answer = { status: number; body: any; headers: Headers };
/** One instance's HTTP: a POST of a JSON body. */
export type Post = (path: string, body: unknown) => Promise<Answer>;
type Receiver = ReturnType<typeof startWebhookReceiver>;

/** What a race needs: the instances' POSTs (one may appear several times), every executor they sign with, the receiver. */
export type Racers = { posts: readonly Post[]; executors: readonly Address[]; receiver: Receiver };

/** Each instance gets `perInstance` copies of the body at once. */
const race = (racers: Racers, path: string, body: unknown, perInstance: number) =>
  Promise.all(racers.posts.flatMap((post) => Array.from({ length: perInstance }, () => post(path, body))));

/** Every transaction the executors have sent on `network`, pending ones included: the chain's count. */
export async function sentBy(network: NetworkName, executors: readonly Address[]) {
  const counts = await Promise.all(
    executors.map((address) => chainOf(network).public.getTransactionCount({ address, blockTag: "pending" })),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

export const executorsOf = (keys: readonly string[]) => keys.map((key) => privateKeyToAccount(key as Hex).address);

/** A relay402 body's answers: 200 naming the transaction, or 202 pending under the payment's id; never anything else. */
function expectRelay402Answers(answers: Answer[], paymentId: string) {
  for (const answer of answers) {
    expect([200, 202]).toContain(answer.status);
    expect(answer.body.paymentId).toBe(paymentId);
    if (answer.status === 202) {
      expect(answer.body).toMatchObject({ success: false, status: "pending" });
      expect(answer.headers.get("location")).toBe(`/payments/${paymentId}`);
      expect(answer.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    }
  }
  const settled = answers.filter((answer) => answer.status === 200);
  expect(new Set(settled.map((answer) => answer.body.transaction)).size).toBeLessThanOrEqual(1);
  return settled[0]?.body.transaction as Hex | undefined;
}

/** The one transaction: sent once, mined successfully, named by a final settle on every instance; one payment.settled. */
async function expectOneTransaction(
  racers: Racers,
  network: NetworkName,
  sentBefore: number,
  paymentId: string,
  final: (post: Post) => Promise<Hex>,
  raced?: Hex,
) {
  expect(await sentBy(network, racers.executors)).toBe(sentBefore + 1);
  const named = await Promise.all(racers.posts.map(final));
  const transaction = named[0] as Hex;
  expect(new Set(named)).toEqual(new Set([transaction]));
  if (raced) expect(transaction).toBe(raced);
  const receipt = await chainOf(network).public.getTransactionReceipt({ hash: transaction });
  expect(receipt.status).toBe("success");
  expect(await sentBy(network, racers.executors)).toBe(sentBefore + 1);
  const [event] = await expectEvents(racers.receiver, paymentId, ["payment.settled"]);
  expect(event?.data).toMatchObject({ status: "settled", transaction });
  return transaction;
}

/** A final settle of a relay402 body on one instance: 200, naming the transaction. */
const settledOn = (path: string, body: unknown) => async (post: Post) => {
  const final = await post(path, body);
  expect(final.status).toBe(200);
  return final.body.transaction as Hex;
};

export async function raceRelay402Payment(racers: Racers, network: NetworkName) {
  const c = chainOf(network);
  const unit = 10n ** BigInt(c.token.decimals);
  const { to, body, paymentId } = await readyPayment(network, 3n * unit, { allowance: 100n * unit });
  const sentBefore = await sentBy(network, racers.executors);
  const raced = expectRelay402Answers(await race(racers, "/settle", body, 3), paymentId);
  await expectOneTransaction(racers, network, sentBefore, paymentId, settledOn("/settle", body), raced);
  expect(await tokenBalance(network, c.token.address, to)).toBe(3n * unit);
}

/**
 * A relay402 body raced while blocks are stopped: every answer is 202 under the payment's id; once the block is mined,
 * payment.settled follows with nobody settling again (the sending instance resumes its record), and every instance's
 * final answer names the one transaction. Needs a `receiptTimeoutMs` of a second or two.
 */
export async function raceStalledRelay402Payment(racers: Racers, network: NetworkName) {
  const c = chainOf(network);
  const unit = 10n ** BigInt(c.token.decimals);
  const { to, body, paymentId } = await readyPayment(network, 2n * unit, { allowance: 100n * unit });
  const sentBefore = await sentBy(network, racers.executors);
  const answers = await withBlocksStopped(network, async () => {
    const raced = await race(racers, "/settle", body, 2);
    await c.test.mine({ blocks: 1 });
    return raced;
  });
  expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 202));
  expectRelay402Answers(answers, paymentId);
  const [event] = await expectEvents(racers.receiver, paymentId, ["payment.settled"]);
  await expectOneTransaction(
    racers,
    network,
    sentBefore,
    paymentId,
    settledOn("/settle", body),
    event?.data.transaction as Hex,
  );
  expect(await tokenBalance(network, c.token.address, to)).toBe(2n * unit);
}

export async function raceRelay402Swap(racers: Racers, network: NetworkName) {
  const t = swapTokensOf(network);
  const payer = await freshPayer(network);
  const sellAmount = 40n * t.unit;
  await approveRelayer(network, payer.key, sellAmount);
  const recipient = randomAddress();
  const quote = (await racers.posts[0]!("/swap/quote", mToWQuoteBody(network, payer.address, recipient, sellAmount)))
    .body;
  const { message } = quote.typedData;
  const { body } = await signQuotedSwap(network, payer.key, quote);
  const paymentId = paymentIdOf({
    chainId: t.c.info.chainId,
    contract: t.c.info.relayer,
    payer: payer.address,
    nonce: message.nonce as Hex,
  });
  const sentBefore = await sentBy(network, racers.executors);
  const raced = expectRelay402Answers(await race(racers, "/swap/settle", body, 3), paymentId);
  const transaction = await expectOneTransaction(
    racers,
    network,
    sentBefore,
    paymentId,
    settledOn("/swap/settle", body),
    raced,
  );
  expect(await tokenBalance(network, t.m, payer.address)).toBe(1000n * t.unit - sellAmount);
  expect(transaction).toMatch(/^0x[0-9a-f]{64}$/);
}

/** An x402 body raced: one success, every other answer 200 invalid_exact_evm_nonce_already_used; or, under a payment identifier, the first result everywhere. */
export async function raceX402Payment(racers: Racers, network: NetworkName, { identified = false } = {}) {
  const x = X402_EXACT[network];
  const buyer = await x.buyer();
  const requirements = x.requirements(x.price);
  const signed = await buyer.pay(requirements);
  const payment = identified ? withIdentifier(signed, freshId()) : signed;
  const paymentId = x.paymentId(payment);
  const body = x402Body(payment, requirements);
  const sentBefore = await sentBy(network, racers.executors);
  const answers = await race(racers, "/settle", body, 3);
  for (const answer of answers) {
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ extra: { paymentId }, payer: buyer.address });
  }
  const successes = answers.filter((answer) => answer.body.success === true);
  if (identified) expect(successes).toHaveLength(answers.length);
  else {
    expect(successes).toHaveLength(1);
    for (const answer of answers.filter((item) => item.body.success !== true))
      expect(answer.body.errorReason).toBe("invalid_exact_evm_nonce_already_used");
  }
  const raced = successes[0]?.body.transaction as Hex;
  expect(new Set(successes.map((answer) => answer.body.transaction))).toEqual(new Set([raced]));
  await expectOneTransaction(
    racers,
    network,
    sentBefore,
    paymentId,
    async (post) => {
      // Asked again: the first result under the identifier, else the refusal naming the transaction that paid.
      const final = await post("/settle", body);
      expect(final.status).toBe(200);
      expect(final.body.success).toBe(identified);
      if (!identified) expect(final.body.errorReason).toBe("invalid_exact_evm_nonce_already_used");
      return final.body.transaction;
    },
    raced,
  );
  expect(await tokenBalance(network, chainOf(network).token.address, requirements.payTo as Address)).toBe(x.price);
}

/**
 * Every race, by the name of its test; `stalled` ones settle on stopped blocks and need instances whose receipt wait
 * is a second or two.
 */
export const RACES: readonly {
  name: string;
  race: (racers: Racers, network: NetworkName) => Promise<unknown>;
  stalled?: boolean;
}[] = [
  {
    name: "a relay402 payment body: 200 or 202, never a 5xx; one transaction; one payment.settled",
    race: raceRelay402Payment,
  },
  {
    name: "a relay402 payment body on stopped blocks: 202 everywhere, then one payment.settled with no retry; one transaction",
    race: raceStalledRelay402Payment,
    stalled: true,
  },
  {
    name: "a relay402 swap body: 200 or 202, never a 5xx; one transaction; one payment.settled",
    race: raceRelay402Swap,
  },
  {
    name: "an x402 body: one success, the others invalid_exact_evm_nonce_already_used; one transaction; one payment.settled",
    race: (racers, network) => raceX402Payment(racers, network),
  },
  {
    name: "an x402 body under a payment identifier: the first result everywhere; one transaction; one payment.settled",
    race: (racers, network) => raceX402Payment(racers, network, { identified: true }),
  },
];
