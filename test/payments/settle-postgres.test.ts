// The settlement flows themselves on PostgreSQL, on the devnet: the settlers the service builds (createPaymentSettler,
// createX402Facilitator) with the PostgreSQL stores, the real executors and relayer. Several "instances" are several
// settlers, each with its own connection pool, its own executor and its own executor key, as separate service
// processes on one database would be; only the database is shared. The chain judges: balances and nonces.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { paymentIdOf } from "@relay402/client/wire/payment-id";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ApiError, PaymentPendingError } from "../../src/errors";
import { reconcileSettlements } from "../../src/payments/reconcile-settlements";
import { parseAuthorization } from "../../src/settlement/authorization";
import { createPaymentSettler, eoaPaymentId } from "../../src/settlement/settle-payment";
import { settlementOf } from "../../src/settlement/settlement-store";
import { createSettlementStorePostgres } from "../../src/settlement/settlement-store-postgres";
import { quoteSwap, swapNetwork } from "../../src/swap/quote-swap";
import { createSwapSettler } from "../../src/swap/settle-swap";
import { parseSwapAuthorization } from "../../src/swap/swap-authorization";
import { createSwapSettlementStorePostgres } from "../../src/swap/swap-store-postgres";
import type { SwapVerifyContext } from "../../src/swap/verify-swap";
import { createX402Facilitator } from "../../src/x402/facilitator";
import { createX402SettlementStorePostgres } from "../../src/x402/settlement-store-postgres";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { createTestDatabase } from "../support/postgres";
import { postgresInstanceBase } from "../support/postgres-instance";
import { baseRequirements, x402Buyer } from "../x402/support";

type Network = (typeof NETWORK_NAMES)[number];
type PaymentBody = Awaited<ReturnType<typeof signedPayment>>;
/** The network of the tests that do not loop over both. */
const network = "bsc" as const;
const c = chainOf(network);
const unit = 10n ** BigInt(c.token.decimals);

let url: string;
const running: { stop(): Promise<void> }[] = [];

/** One service instance's settlement side (the service's settler factories) on the shared PostgreSQL. */
async function startInstance(keyIndex: number) {
  const base = await postgresInstanceBase(url, keyIndex);
  const { db, networks, deny, now, logger, relayerFor, rulesFor } = base;
  const store = createSettlementStorePostgres(db);
  const settler = createPaymentSettler({ store, relayerFor, rulesFor, now, logger });
  const x402 = createX402Facilitator({
    networks,
    store: createX402SettlementStorePostgres(db),
    rulesFor,
    now,
    logger,
  });
  const swapSettler = createSwapSettler({ store: createSwapSettlementStorePostgres(db), logger });
  /** What createSwaps (src/swap/swaps.ts) gives the swap settler for a body on `name`. */
  const swapContext = (name: string): SwapVerifyContext => {
    const { network: runtime, swap } = swapNetwork(networks, name, "swapRequirements.network");
    return {
      network: runtime,
      swap,
      now,
      domain: () => relayerFor(runtime).domain(),
      isPayerDenied: (payer) => deny.isDenied(runtime.name, "payer", payer),
    };
  };
  const instance = {
    executor: base.executor,
    db,
    store,
    networks,
    settler,
    x402,
    relayerFor,
    rulesFor,
    logger,
    now,
    swapSettler,
    swapContext,
    /** Settles `body` on the network it names, through that network's relayer. */
    settle: (body: PaymentBody) => {
      const chain = body.paymentRequirements.network as Network;
      return settler.settle(networks.get(chain), parseAuthorization(body.paymentPayload), chainOf(chain).info.relayer);
    },
    stop: base.stop,
  };
  running.push(instance);
  return instance;
}

/** Transactions sent by these addresses so far (pending included): what all instances spent on the chain. */
const sentBy = async (chain: "bsc" | "base", addresses: Address[]) =>
  (
    await Promise.all(
      addresses.map((address) => chainOf(chain).public.getTransactionCount({ address, blockTag: "pending" })),
    )
  ).reduce((sum, count) => sum + count, 0);

/** The id a client computes from its signed body (wire/payment-id.ts): the relayer's nonce space. */
const eoaIdOf = (body: PaymentBody) =>
  paymentIdOf({
    chainId: chainOf(body.paymentRequirements.network as Network).info.chainId,
    contract: chainOf(body.paymentRequirements.network as Network).info.relayer,
    payer: body.paymentPayload.payload.authorization.from as Address,
    nonce: body.paymentPayload.payload.authorization.nonce as Hex,
  });

async function readyPayment(value: bigint, chain: Network = network) {
  const payer = await freshPayer(chain);
  await approveRelayer(chain, payer.key, 1000n * unitOf(chain));
  const to = randomAddress();
  return { payer, to, body: await signedPayment({ network: chain, key: payer.key, to, value }) };
}

const unitOf = (chain: Network) => 10n ** BigInt(chainOf(chain).token.decimals);
const balance = (holder: Address, chain: Network = network) =>
  tokenBalance(chain, chainOf(chain).token.address, holder);

beforeAll(async () => {
  url = await createTestDatabase("settle_pg");
});

afterAll(async () => {
  await Promise.all(running.map((instance) => instance.stop()));
});

describe("EOA settlement on PostgreSQL", () => {
  test("settles payments: exact balances, records on PostgreSQL, a repeat answers the same transaction", async () => {
    const instance = await startInstance(0);
    const payments = await Promise.all([3n, 5n, 8n].map((n) => readyPayment(n * unit)));
    const before = await Promise.all(payments.map(({ payer }) => balance(payer.address)));
    const answers = await Promise.all(payments.map(({ body }) => instance.settle(body)));
    for (const [index, { payer, to, body }] of payments.entries()) {
      const value = BigInt(body.paymentPayload.payload.authorization.value);
      const answer = answers[index];
      expect(answer?.success).toBe(true);
      expect(await balance(to)).toBe(value);
      expect(await balance(payer.address)).toBe((before[index] as bigint) - value);
      const receipt = await c.public.getTransactionReceipt({ hash: answer?.transaction as Hex });
      expect(receipt.status).toBe("success");
      const record = await instance.store.find({
        network,
        payer: payer.address,
        nonce: body.paymentPayload.payload.authorization.nonce,
      });
      expect(record).toMatchObject({
        status: "success",
        txHash: answer?.transaction,
        blockNumber: answer?.blockNumber,
      });
    }
    // A repeat is answered from the PostgreSQL record: the same transaction, nothing sent, nothing moved.
    const first = payments[0] as (typeof payments)[number];
    const sentBefore = await sentBy(network, [instance.executor]);
    const repeat = await instance.settle(first.body);
    expect(repeat.transaction).toBe(answers[0]?.transaction as Hex);
    expect(await sentBy(network, [instance.executor])).toBe(sentBefore);
    expect(await balance(first.to)).toBe(3n * unit);
  });

  test("a claim released by another instance before its journal write is never broadcast, and its nonce is reused", async () => {
    const instance = await startInstance(7);
    const { store, networks, relayerFor, now, logger } = instance;
    // The window an orphan sweep could hit: the record is claimed and the transaction signed, then the record is
    // released (as a sweep releases a claim it takes for abandoned) just before the journal write.
    let released = 0;
    const racing = createPaymentSettler({
      store: {
        ...store,
        journalSent: async (id, hash, raw) => {
          await store.release(id);
          released += 1;
          return store.journalSent(id, hash, raw);
        },
      },
      relayerFor,
      rulesFor: instance.rulesFor,
      now,
      logger,
    });
    const { payer, to, body } = await readyPayment(4n * unit);
    const nonceBefore = await c.public.getTransactionCount({ address: instance.executor, blockTag: "pending" });
    const refused = await racing
      .settle(networks.get(network), parseAuthorization(body.paymentPayload), c.info.relayer)
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(released).toBe(1);
    expect(refused).toBeInstanceOf(ApiError);
    // Nothing reached the chain: no transaction from the executor, no payment, the record gone.
    expect(await c.public.getTransactionCount({ address: instance.executor, blockTag: "pending" })).toBe(nonceBefore);
    expect(await balance(to)).toBe(0n);
    const key = { network, payer: payer.address, nonce: body.paymentPayload.payload.authorization.nonce };
    expect(await store.find(key)).toBeUndefined();
    // The nonce was given back: the next settle is mined at it, with no gap for the repair loop to fill.
    const settled = await instance.settle(body);
    expect(settled.success).toBe(true);
    const sent = await c.public.getTransaction({ hash: settled.transaction as Hex });
    expect(sent.nonce).toBe(nonceBefore);
    expect(await balance(to)).toBe(4n * unit);
  });

  for (const chain of NETWORK_NAMES) {
    test(`${chain}: the same authorization settled by three instances at once, 5 rounds: one transaction each, judged by the chain`, async () => {
      const instances = await Promise.all([1, 2, 3].map((index) => startInstance(index)));
      const executors = instances.map((instance) => instance.executor);
      for (let round = 0; round < 5; round++) {
        const value = BigInt(round + 1) * unitOf(chain);
        const { payer, to, body } = await readyPayment(value, chain);
        const payerBefore = await balance(payer.address, chain);
        const sentBefore = await sentBy(chain, executors);
        // Two calls per instance: the second shares the first's promise in its process (the single-flight), so the
        // race between instances is decided by the database alone.
        const results = await Promise.allSettled(
          instances.flatMap((instance) => [instance.settle(body), instance.settle(body)]),
        );
        const successes = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
        const failures = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
        expect(successes.length).toBeGreaterThanOrEqual(1);
        expect(new Set(successes.map((answer) => answer.transaction)).size).toBe(1);
        // A loser is told the authorization is being settled (202 pending under the payment's id), never a refusal,
        // a 5xx or a second transaction.
        const paymentId = eoaIdOf(body);
        for (const failure of failures) {
          expect(failure).toBeInstanceOf(PaymentPendingError);
          expect((failure as PaymentPendingError).status).toBe(202);
          expect((failure as PaymentPendingError).pending).toMatchObject({ paymentId, network: chain });
        }
        for (const success of successes) expect(success.paymentId).toBe(paymentId);
        expect(await sentBy(chain, executors)).toBe(sentBefore + 1);
        expect(await balance(to, chain)).toBe(value);
        expect(await balance(payer.address, chain)).toBe(payerBefore - value);
        // Afterwards every instance answers the one transaction.
        const again = await Promise.all(instances.map((instance) => instance.settle(body)));
        expect(new Set(again.map((answer) => answer.transaction))).toEqual(new Set([successes[0]?.transaction as Hex]));
        expect(await sentBy(chain, executors)).toBe(sentBefore + 1);
        const receipt = await chainOf(chain).public.getTransactionReceipt({ hash: successes[0]?.transaction as Hex });
        expect(receipt.status).toBe("success");
      }
      await Promise.all(instances.map((instance) => instance.stop()));
    });
  }

  test("an instance that crashed after its journal write: two others reconcile at once, the payment is made exactly once", async () => {
    const crashed = await startInstance(4);
    const value = 11n * unit;
    const { payer, to, body } = await readyPayment(value);
    const payerBefore = await balance(payer.address);
    // What /settle does up to the broadcast: the record claimed, the transaction signed and journaled, then the
    // process dies before anything reaches the node.
    const authorization = parseAuthorization(body.paymentPayload);
    const runtime = crashed.networks.get(network);
    const paymentId = eoaPaymentId(runtime, authorization.from, authorization.nonce);
    const { record, created } = await crashed.store.claim(settlementOf(network, authorization, paymentId));
    expect(created).toBe(true);
    const prepared = await runtime.executor.prepare({
      to: runtime.config.contracts.relayer!,
      data: crashed.relayerFor(runtime).transferCallData(authorization),
      gas: BigInt(runtime.config.settleGasLimit),
    });
    await crashed.store.journalSent(record.id, prepared.hash, prepared.raw);
    await crashed.stop();
    expect(await balance(to)).toBe(0n);

    const survivors = await Promise.all([5, 6].map((index) => startInstance(index)));
    const executors = [crashed.executor, ...survivors.map((instance) => instance.executor)];
    const sentBefore = await sentBy(network, executors);
    expect((await survivors[0]?.settler.unfinished())?.map((row) => row.id)).toContain(record.id);
    await Promise.all(survivors.map((instance) => reconcileSettlements(instance)));

    // The journaled transaction itself was mined: the crashed instance's key, its nonce; no other sent anything.
    const receipt = await c.public.getTransactionReceipt({ hash: prepared.hash });
    expect(receipt.status).toBe("success");
    expect(await sentBy(network, executors)).toBe(sentBefore + 1);
    expect(await balance(to)).toBe(value);
    expect(await balance(payer.address)).toBe(payerBefore - value);
    const stored = await survivors[0]?.store.find({ network, payer: payer.address, nonce: authorization.nonce });
    expect(stored).toMatchObject({ status: "success", txHash: prepared.hash });
    expect((await survivors[1]?.settler.unfinished())?.map((row) => row.id)).not.toContain(record.id);
    // A settle of it on either survivor answers that transaction and sends nothing.
    const answers = await Promise.all(survivors.map((instance) => instance.settle(body)));
    expect(answers.map((answer) => answer.transaction)).toEqual([prepared.hash, prepared.hash]);
    expect(await sentBy(network, executors)).toBe(sentBefore + 1);
    await Promise.all(survivors.map((instance) => instance.stop()));
  });
});

describe("x402 settlement on PostgreSQL", () => {
  test("one payment sent to three instances at once: one transaction, one success answer, the payment made once", async () => {
    const instances = await Promise.all([1, 2, 3].map((index) => startInstance(index)));
    const executors = instances.map((instance) => instance.executor);
    const buyer = await x402Buyer();
    const price = 1_250_000n;
    const requirements = baseRequirements(price);
    const payment = await buyer.pay(requirements);
    const body = { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements };
    const base = chainOf("base");
    const buyerBefore = await tokenBalance("base", base.token.address, buyer.address);
    const sentBefore = await sentBy("base", executors);
    const answers = await Promise.all(instances.flatMap((instance) => [instance.x402.settle(body as never)]));
    // One payment, one success across instances: the row's conditional update decides which answer says so.
    const successes = answers.filter((answer) => answer.success);
    expect(successes).toHaveLength(1);
    for (const answer of answers.filter((item) => !item.success)) {
      expect(answer.errorReason).toBeDefined();
      expect(answer.transaction === "" || answer.transaction === successes[0]?.transaction).toBe(true);
    }
    expect(await sentBy("base", executors)).toBe(sentBefore + 1);
    expect(await tokenBalance("base", base.token.address, requirements.payTo as Address)).toBe(price);
    expect(await tokenBalance("base", base.token.address, buyer.address)).toBe(buyerBefore - price);
    const receipt = await base.public.getTransactionReceipt({ hash: successes[0]?.transaction as Hex });
    expect(receipt.status).toBe("success");
    // A later settle of it on any instance is not a second success.
    const repeat = await instances[2]?.x402.settle(body as never);
    expect(repeat?.success).toBe(false);
    expect(await sentBy("base", executors)).toBe(sentBefore + 1);
    await Promise.all(instances.map((instance) => instance.stop()));
  });
});

describe("EOA swap settlement on PostgreSQL", () => {
  test("one swap sent to three instances at once: one transaction, exact balances", async () => {
    const instances = await Promise.all([1, 2, 3].map((index) => startInstance(index)));
    const executors = instances.map((instance) => instance.executor);
    const first = instances[0] as (typeof instances)[number];
    const dex = c.info.dex;
    if (!dex) throw new Error("the bsc devnet has no DEX");
    const payer = await freshPayer(network);
    const sellAmount = 40n * unit;
    await approveRelayer(network, payer.key, sellAmount);
    const recipient = randomAddress();
    const quote = await quoteSwap(
      { networks: first.networks, now: first.now, domainOf: (runtime) => first.relayerFor(runtime).domain() },
      {
        network,
        sellToken: c.token.address,
        buyToken: dex.wrappedNative,
        sellAmount: sellAmount.toString(),
        mode: "eoa",
        from: payer.address,
        recipient,
      },
    );
    // Mode eoa: the payer signs the quote's typed data as it comes.
    type TypedData = Parameters<ReturnType<typeof privateKeyToAccount>["signTypedData"]>[0];
    const { typedData } = quote as unknown as { typedData: TypedData };
    const signature = await privateKeyToAccount(payer.key).signTypedData(typedData);
    const { authorization, route } = parseSwapAuthorization({
      authorization: typedData.message,
      signature,
      path: quote.path,
    } as never);
    const payerBefore = await balance(payer.address);
    const feeBefore = await balance(c.info.feeRecipient);
    const sentBefore = await sentBy(network, executors);

    const results = await Promise.allSettled(
      instances.map((instance) =>
        instance.swapSettler.settle(instance.swapContext(network), authorization, signature, route, c.info.relayer),
      ),
    );
    const successes = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    expect(successes.length).toBeGreaterThanOrEqual(1);
    expect(new Set(successes.map((answer) => answer.transaction)).size).toBe(1);
    for (const result of results) {
      if (result.status === "rejected") {
        expect(result.reason).toBeInstanceOf(PaymentPendingError);
        expect((result.reason as PaymentPendingError).status).toBe(202);
      }
    }
    expect(await sentBy(network, executors)).toBe(sentBefore + 1);
    const settled = successes[0] as (typeof successes)[number];
    expect(await balance(payer.address)).toBe(payerBefore - sellAmount);
    expect(await balance(c.info.feeRecipient)).toBe(feeBefore + BigInt(quote.fee));
    const received = await tokenBalance(network, dex.wrappedNative, recipient);
    expect(received).toBe(BigInt(settled.swap.buyAmount));
    expect(received).toBeGreaterThanOrEqual(BigInt(quote.minBuyAmount));
    await Promise.all(instances.map((instance) => instance.stop()));
  });
});
