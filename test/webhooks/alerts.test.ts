// The operator's alerts on the devnet, on one instance's SQLite file: an executor drained below its threshold raises
// exactly one executor.low_balance, however many times it is read low; topped up and drained again, a second one.
// The same for the paymaster's EntryPoint deposit (paymaster.low_deposit). The figures are the chain's: balances
// moved on anvil, the deposit withdrawn and deposited again by real transactions.
import { afterAll, expect, test } from "bun:test";
import { getAddress } from "viem";
import { chainOf } from "../support/chain";
import { trackServices } from "../support/service";
import { until } from "../support/until";
import { newWebhookSecret, startWebhookReceiver } from "../support/webhook-receiver";
import {
  addDeposit,
  firstExecutor,
  nativeBalanceOf,
  paymasterDeposit,
  setNativeBalance,
  withdrawDeposit,
} from "./alerts-support";

const CHECK_MS = 100;
const services = trackServices();
const secret = newWebhookSecret();
const receiver = startWebhookReceiver(secret);
afterAll(() => {
  services.stopAll();
  receiver.stop();
});

const ALERTS = ["executor.low_balance", "paymaster.low_deposit"] as const;
const webhooks = {
  endpoints: [
    { id: "ops", url: receiver.url, secret, events: [...ALERTS] },
    // A merchant's endpoint with the default events: the operator's alerts never reach it.
    { id: "shop", url: receiver.url, secret },
  ],
  pollMs: 50,
  balanceCheckMs: CHECK_MS,
};

/** Several reads of the watch, so that a figure read low again would have raised again. */
const severalChecks = () => Bun.sleep(CHECK_MS * 8);

test("an executor drained below its threshold raises one executor.low_balance per crossing", async () => {
  const executor = firstExecutor();
  const threshold = 10n ** 18n;
  const original = await nativeBalanceOf("bsc", executor);
  expect(original).toBeGreaterThan(threshold);
  const service = services.start({
    webhooks,
    dashboard: { executorAlertWei: { bsc: threshold.toString() } },
  } as never);
  const mine = () => receiver.of("executor.low_balance", (data) => data.address === executor);
  try {
    await severalChecks();
    expect(mine()).toEqual([]);

    await setNativeBalance("bsc", executor, threshold - 1n);
    await until("the first executor.low_balance", () => mine().length === 1);
    await severalChecks();
    expect(mine()).toHaveLength(1);
    expect(
      receiver.verified.filter((each) => each.type === "executor.low_balance" && each.data.address === executor),
    ).toHaveLength(1);
    const [first] = mine();
    expect(first?.data).toEqual({
      network: "bsc",
      address: getAddress(executor),
      balanceWei: (await nativeBalanceOf("bsc", executor)).toString(),
      alertBelowWei: threshold.toString(),
    });

    // Topped up (at the threshold is not below it), read above, then drained again: a second crossing.
    await setNativeBalance("bsc", executor, threshold);
    await severalChecks();
    expect(mine()).toHaveLength(1);
    await setNativeBalance("bsc", executor, threshold / 2n);
    await until("the second executor.low_balance", () => mine().length === 2);
    await severalChecks();
    expect(mine()).toHaveLength(2);
    const [, second] = mine();
    expect(second?.id).not.toBe(first?.id);
    expect(second?.data.balanceWei).toBe((threshold / 2n).toString());

    // Only the endpoint that lists the alerts received them, and every executor above the threshold stayed quiet.
    const events = service.db.$client
      .query(
        "SELECT count(*) AS n FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.type = 'executor.low_balance' AND d.endpoint = 'shop'",
      )
      .get() as { n: number };
    expect(events.n).toBe(0);
    for (const address of service.services.networks.get("bsc").executor.addresses) {
      if (address === executor || (await nativeBalanceOf("bsc", address)) < threshold) continue;
      expect(receiver.of("executor.low_balance", (data) => data.address === address)).toEqual([]);
    }
  } finally {
    await setNativeBalance("bsc", executor, original);
    await service.stop();
  }
}, 30_000);

test("the paymaster's deposit withdrawn below its threshold raises one paymaster.low_deposit per crossing", async () => {
  const c = chainOf("base");
  const deposit = await paymasterDeposit("base");
  const threshold = deposit - deposit / 4n;
  const taken = deposit / 2n;
  const service = services.start({
    webhooks,
    dashboard: { paymasterAlertWei: { base: threshold.toString() } },
  } as never);
  const mine = () => receiver.of("paymaster.low_deposit", (data) => data.network === "base");
  let withdrawn = 0n;
  try {
    await severalChecks();
    expect(mine()).toEqual([]);

    await withdrawDeposit("base", taken);
    withdrawn += taken;
    await until("the first paymaster.low_deposit", () => mine().length === 1);
    await severalChecks();
    expect(mine()).toHaveLength(1);
    expect(mine()[0]?.data).toEqual({
      network: "base",
      paymaster: getAddress(c.info.paymaster),
      entryPoint: getAddress(c.info.entryPoint),
      depositWei: (deposit - taken).toString(),
      alertBelowWei: threshold.toString(),
    });
    // bsc's deposit stays above its default threshold: nothing of bsc.
    expect(receiver.of("paymaster.low_deposit", (data) => data.network === "bsc")).toEqual([]);

    await addDeposit("base", taken);
    withdrawn -= taken;
    await severalChecks();
    expect(mine()).toHaveLength(1);
    await withdrawDeposit("base", taken);
    withdrawn += taken;
    await until("the second paymaster.low_deposit", () => mine().length === 2);
    await severalChecks();
    expect(mine()).toHaveLength(2);
    expect(await paymasterDeposit("base")).toBe(deposit - taken);
  } finally {
    if (withdrawn > 0n) await addDeposit("base", withdrawn);
    await service.stop();
  }
}, 30_000);
