// EIP-7702-delegated payers and funded approves (issue #33 item 3), through relay402's EOA flow (its relayer checks an
// ECDSA signature before any ERC-1271 code, so a smart EOA pays as an EOA does). A transfer to a delegated account runs
// its delegate's code: a legitimate one is funded with room for it; one that refuses coins costs nothing; one that moves
// the funding away without the payer's nonce leaves an approve the node refuses: `refused`, counted, lost.
import { afterAll, describe, expect, test } from "bun:test";
import type { Address, Hex } from "viem";
import { signedPayment } from "../support/authorization";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { ACCEPTS, delegatedPayer, deployDelegate, forwardsTo, REFUSES } from "./delegated-payers";
import { type Net, nativeBalance, plainToken, signApprove } from "./funded-approve-support";

const services = trackServices();
afterAll(() => services.stopAll());
const relay = services.start();
const price = 10n ** 18n;

/** The payer's EOA payment of `price` with its signed approve of the relayer. */
async function fundedPayment(network: Net, payer: { key: Hex; address: Address }) {
  const payTo = randomAddress();
  const body = await signedPayment({ network, key: payer.key, to: payTo, value: price, token: plainToken() });
  const raw = await signApprove(payer.key, network, { spender: chainOf(network).info.relayer as Address });
  return { payTo, body: { ...body, paymentPayload: { ...body.paymentPayload, approval: { signedTransaction: raw } } } };
}

const rowsOf = (payer: Address) =>
  relay.db.$client
    .query<{ status: string }, [string]>("SELECT status FROM funded_approvals WHERE payer = ?")
    .all(payer.toLowerCase())
    .map((row) => row.status);

for (const network of ["bsc", "base"] as const) {
  describe(`EIP-7702-delegated payers on ${network}`, () => {
    test("a smart EOA whose delegate accepts coins: funded with room for its code, its approve mined, the payment paid", async () => {
      const payer = await delegatedPayer(network, await deployDelegate(network, ACCEPTS));
      const { payTo, body } = await fundedPayment(network, payer);
      expect((await relay.post("/settle", body)).body).toMatchObject({ success: true });
      expect(await tokenBalance(network, plainToken(), payTo)).toBe(price);
      expect(rowsOf(payer.address)).toEqual(["used"]);
    });

    test("a delegate that refuses coins: the funding's simulation reverts, nothing is sent, nobody is funded", async () => {
      const payer = await delegatedPayer(network, await deployDelegate(network, REFUSES));
      const executors = relay.services.networks.get(network).executor.addresses;
      const sent = () =>
        Promise.all(executors.map((address) => chainOf(network).public.getTransactionCount({ address })));
      const sentBefore = await sent();
      const { payTo, body } = await fundedPayment(network, payer);
      expect((await relay.post("/settle", body)).body).toMatchObject({
        code: "payment_verification_error",
        details: { field: "paymentPayload.approval.signedTransaction", reason: "payer_code" },
      });
      expect(await nativeBalance(network, payer.address)).toBe(0n);
      expect(await tokenBalance(network, plainToken(), payTo)).toBe(0n);
      expect(rowsOf(payer.address)).toEqual([]);
      expect(await sent()).toEqual(sentBefore);
    });

    test("a delegate that forwards the funding away, without the payer's nonce: the approve is refused by the node, the record `refused`, the payer counted", async () => {
      const away = randomAddress();
      const payer = await delegatedPayer(network, await deployDelegate(network, forwardsTo(away)));
      const { payTo, body } = await fundedPayment(network, payer);
      const answer = await relay.post("/settle", body);
      expect(answer.body).toMatchObject({ code: "payment_verification_error", details: { reason: "node_refused" } });
      expect(await nativeBalance(network, away)).toBeGreaterThan(0n);
      expect(await tokenBalance(network, plainToken(), payTo)).toBe(0n);
      expect(rowsOf(payer.address)).toEqual(["refused"]);
      const counted = relay.db.$client
        .query<{ reverts: number }, [string]>("SELECT reverts FROM deny_counters WHERE kind = 'payer' AND address = ?")
        .get(payer.address.toLowerCase());
      expect(counted?.reverts).toBe(1);
    });
  });
}
