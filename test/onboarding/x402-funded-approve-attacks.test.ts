import { afterAll, describe, expect, test } from "bun:test";
import { type Address, type Hex, keccak256, parseGwei, parseTransaction } from "viem";
import { generatePrivateKey } from "viem/accounts";
import { sendDurably } from "../../src/chain/durable-send";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import {
  nativeBalance,
  permit2Payment,
  plainRequirements,
  plainToken,
  signApprove,
  sponsoredBody,
  tokenOnlyPayer,
} from "./funded-approve-support";
import { divertedFundedApprove, TRANSFER_GAS_COST } from "./funded-payments";

const services = trackServices();
afterAll(() => services.stopAll());
const relay = services.start();
const c = chainOf("bsc");
const price = 10n ** 18n;

/** A token-only payer's Permit2 payment on bsc, its requirements and the payer. */
async function sponsoredPayment(amount = price) {
  const payer = await tokenOnlyPayer("bsc");
  const requirements = plainRequirements("bsc", amount);
  const payment = await permit2Payment(payer.key, requirements);
  return { payer, requirements, payment };
}

/** What the approve's signer pays at most: gas limit × max fee (the funding of a payer holding nothing). */
const costOf = (raw: Hex) => {
  const tx = parseTransaction(raw);
  return (tx.gas as bigint) * (tx.maxFeePerGas as bigint);
};
const receiptCost = async (raw: Hex) => {
  const receipt = await c.public.getTransactionReceipt({ hash: keccak256(raw) });
  return receipt.gasUsed * receipt.effectiveGasPrice;
};
const fundingRows = (payer: Address) =>
  relay.db.$client
    .query<{ n: number }, [string]>("SELECT count(*) AS n FROM funded_approvals WHERE payer = ?")
    .get(payer.toLowerCase())?.n;

describe("funded approves on x402 (bsc): what is refused costs nothing, what is paid is paid once", () => {
  test("an approve for another spender, amount, chain or token, above the caps or under the base fee, with a wrong nonce or signer, or for too small a payment: refused at verify and settle, nobody funded", async () => {
    const cases: [string, (key: Hex) => Promise<Hex>, bigint?][] = [
      ["erc20_approval_tx_wrong_spender", (key) => signApprove(key, "bsc", { spender: randomAddress() })],
      ["erc20_approval_amount_too_low", (key) => signApprove(key, "bsc", { amount: price - 1n })],
      ["erc20_approval_tx_wrong_chain", (key) => signApprove(key, "bsc", { chainId: 8453 })],
      ["erc20_approval_tx_wrong_target", (key) => signApprove(key, "bsc", { to: randomAddress() })],
      ["erc20_approval_gas_limit_too_high", (key) => signApprove(key, "bsc", { gas: 100_001n })],
      ["erc20_approval_fee_too_high", (key) => signApprove(key, "bsc", { maxFeePerGas: parseGwei("5") + 1n })],
      // Under the chain's base fee (anvil's never falls below 7 wei): it would never be mined, its funding kept.
      ["erc20_approval_fee_too_low", (key) => signApprove(key, "bsc", { maxFeePerGas: 1n })],
      ["erc20_approval_tx_wrong_nonce", (key) => signApprove(key, "bsc", { nonce: 1 })],
      ["erc20_approval_tx_signer_mismatch", () => signApprove(generatePrivateKey(), "bsc", { nonce: 0 })],
      ["erc20_approval_payment_too_small", (key) => signApprove(key, "bsc"), 10n ** 17n - 1n],
    ];
    const { baseFeePerGas } = await chainOf("bsc").public.getBlock({ blockTag: "latest" });
    expect(baseFeePerGas).toBeGreaterThan(1n);
    for (const [reason, sign, amount] of cases) {
      const { payer, requirements, payment } = await sponsoredPayment(amount);
      const body = sponsoredBody(payment, requirements, await sign(payer.key));
      expect({ reason, verify: (await relay.post("/verify", body)).body }).toMatchObject({
        reason,
        verify: { isValid: false, invalidReason: reason },
      });
      expect({ reason, settle: (await relay.post("/settle", body)).body }).toMatchObject({
        reason,
        settle: { success: false, errorReason: reason },
      });
      expect(await nativeBalance("bsc", payer.address)).toBe(0n);
      expect(await tokenBalance("bsc", plainToken(), requirements.payTo as Address)).toBe(0n);
      expect(fundingRows(payer.address)).toBe(0);
    }
  });

  test("ten concurrent settles of one sponsored payment: one funding, one approve, one success; the payload replayed is refused unfunded", async () => {
    const { payer, requirements, payment } = await sponsoredPayment();
    const raw = await signApprove(payer.key, "bsc");
    const body = sponsoredBody(payment, requirements, raw);
    expect((await relay.post("/verify", body)).body).toMatchObject({ isValid: true });
    const answers = await Promise.all(Array.from({ length: 10 }, () => relay.post("/settle", body)));
    expect(answers.filter((answer) => (answer.body as { success: boolean }).success)).toHaveLength(1);
    expect(await tokenBalance("bsc", plainToken(), requirements.payTo as Address)).toBe(price);
    expect(await c.public.getTransactionCount({ address: payer.address })).toBe(1);
    expect(fundingRows(payer.address)).toBe(1);
    const left = costOf(raw) - (await receiptCost(raw));
    expect(await nativeBalance("bsc", payer.address)).toBe(left);

    expect((await relay.post("/settle", body)).body).toMatchObject({ success: false });
    expect(await tokenBalance("bsc", plainToken(), requirements.payTo as Address)).toBe(price);
    expect(await nativeBalance("bsc", payer.address)).toBe(left);
  });

  test("the payer replaces its funded approve with a transfer of the funding: we lose that one funding, the payment is refused, the next try is not funded, the payer is counted", async () => {
    const { payer, requirements, raw, answer, away } = await divertedFundedApprove(relay.post, "bsc");
    expect(answer.body).toMatchObject({ success: false, errorReason: "erc20_approval_broadcast_failed" });
    expect(await c.public.getBalance({ address: away })).toBe(costOf(raw) - TRANSFER_GAS_COST);
    expect(await tokenBalance("bsc", plainToken(), requirements.payTo as Address)).toBe(0n);
    const counted = relay.db.$client
      .query<{ reverts: number }, [string]>("SELECT reverts FROM deny_counters WHERE kind = 'payer' AND address = ?")
      .get(payer.address.toLowerCase());
    expect(counted?.reverts).toBe(1);

    // Its next try, a new approve at its next nonce: not funded (the payer still holds too little to send it).
    const retry = await permit2Payment(payer.key, requirements);
    const again = sponsoredBody(
      retry,
      requirements,
      await signApprove(payer.key, "bsc", { maxFeePerGas: parseGwei("2") }),
    );
    const before = await nativeBalance("bsc", payer.address);
    expect((await relay.post("/settle", again)).body).toMatchObject({
      success: false,
      errorReason: "erc20_approval_already_funded",
    });
    expect(await nativeBalance("bsc", payer.address)).toBe(before);
    expect(fundingRows(payer.address)).toBe(1);
  });

  test("a restart after the funding was mined and before the approve was sent broadcasts the approve; the settle then pays without a second funding", async () => {
    const first = services.start();
    const { payer, requirements, payment } = await sponsoredPayment();
    const raw = await signApprove(payer.key, "bsc");
    const approve = parseTransaction(raw);
    const store = first.services.stores.fundedApprovals;
    const claim = await store.claim(
      {
        network: "bsc",
        payer: payer.address,
        nonce: 0,
        token: plainToken(),
        spender: approve.to as Address,
        approveRaw: raw,
        approveHash: keccak256(raw),
        fundingWei: costOf(raw).toString(),
      },
      { wei: 10n ** 18n, since: new Date(0).toISOString() },
    );
    if (claim.kind !== "created") throw new Error("not claimed");
    const network = first.services.networks.get("bsc");
    const sent = await sendDurably(
      network,
      { to: payer.address, value: costOf(raw), data: "0x", gas: 21_000n },
      { signed: (hash, rawTx) => store.fundingSent(claim.record.id, hash, rawTx), replaced: () => undefined },
    );
    expect(sent.status).toBe("mined");
    await first.stop();

    const restarted = services.start({ databasePath: first.databasePath });
    await restarted.services.reconcile();
    expect(await c.public.getTransactionCount({ address: payer.address })).toBe(1);
    const body = sponsoredBody(payment, requirements, raw);
    expect((await restarted.post("/settle", body)).body).toMatchObject({ success: true });
    expect(await tokenBalance("bsc", plainToken(), requirements.payTo as Address)).toBe(price);
    expect(await nativeBalance("bsc", payer.address)).toBe(costOf(raw) - (await receiptCost(raw)));
  });

  test("the budget of the window spent: a payer who needs funding is refused unfunded; one who can pay its approve is served", async () => {
    const poor = services.start({}, (config) => {
      const bsc = config.networks.bsc;
      if (bsc) bsc.fundedApprove = { ...bsc.fundedApprove, budgetWei: 1n };
    });
    const { payer, requirements, payment } = await sponsoredPayment();
    const body = sponsoredBody(payment, requirements, await signApprove(payer.key, "bsc"));
    expect((await poor.post("/settle", body)).body).toMatchObject({
      success: false,
      errorReason: "erc20_approval_budget_spent",
    });
    expect(await nativeBalance("bsc", payer.address)).toBe(0n);

    const raw = await signApprove(payer.key, "bsc");
    await c.test.setBalance({ address: payer.address, value: costOf(raw) });
    expect((await poor.post("/settle", sponsoredBody(payment, requirements, raw))).body).toMatchObject({
      success: true,
    });
    expect(await tokenBalance("bsc", plainToken(), requirements.payTo as Address)).toBe(price);
    expect(await nativeBalance("bsc", payer.address)).toBe(costOf(raw) - (await receiptCost(raw)));
  });
  test("funded approves switched off: /supported offers no extension, a sponsored payment is refused unfunded", async () => {
    const off = services.start({}, (config) => {
      for (const network of Object.values(config.networks))
        if (network) network.fundedApprove = { ...network.fundedApprove, enabled: false };
    });
    // Only the permit's extension stays (PUSD has EIP-2612); funded approves are no longer offered.
    expect((await off.get("/supported")).body.extensions).toEqual(["eip2612GasSponsoring", "payment-identifier"]);
    const { payer, requirements, payment } = await sponsoredPayment();
    const body = sponsoredBody(payment, requirements, await signApprove(payer.key, "bsc"));
    expect((await off.post("/settle", body)).body).toMatchObject({
      success: false,
      errorReason: "erc20_approval_not_supported",
    });
    expect(await nativeBalance("bsc", payer.address)).toBe(0n);
  });
});
