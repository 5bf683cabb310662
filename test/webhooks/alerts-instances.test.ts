// Three instances on one real PostgreSQL read the same low balance at the same time: the operator gets one
// executor.low_balance for the crossing, not one per instance (the alert's state flips once in the database and the
// event's dedupe key is unique); topped up and drained again, one more. The same for the paymaster's deposit. An
// instance whose node answers late (a reading of the balance from before the drain, landing after another instance
// raised the alert) must not re-arm it: the next low reading would raise the same crossing twice.
import { afterAll, expect, test } from "bun:test";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { chainOf } from "../support/chain";
import { postgresService } from "../support/dashboard";
import { getTestDevnet } from "../support/devnet";
import { jsonRpcProxy } from "../support/json-rpc-proxy";
import { createTestDatabase } from "../support/postgres";
import { until } from "../support/until";
import { newWebhookSecret, startWebhookReceiver } from "../support/webhook-receiver";
import {
  addDeposit,
  drainFirstExecutor,
  firstExecutor,
  nativeBalanceOf,
  paymasterDeposit,
  setNativeBalance,
  withdrawDeposit,
} from "./alerts-support";

const CHECK_MS = 100;
const secret = newWebhookSecret();
const receiver = startWebhookReceiver(secret);
afterAll(() => receiver.stop());

type Instance = Awaited<ReturnType<typeof postgresService>>;

const alertConfig = (dashboard: Record<string, unknown>) =>
  configFromManifest(getTestDevnet().devnet.manifest, {
    rateLimitPerMinute: 1_000_000,
    logRequests: false,
    databasePath: ":memory:",
    webhooks: {
      endpoints: [{ id: "ops", url: receiver.url, secret, events: ["executor.low_balance", "paymaster.low_deposit"] }],
      pollMs: 50,
      balanceCheckMs: CHECK_MS,
    },
    dashboard,
  } as never);

async function threeInstances(dashboard: Record<string, unknown>): Promise<Instance[]> {
  const config = alertConfig(dashboard);
  const url = await createTestDatabase("alerts");
  const instances: Instance[] = [];
  for (let i = 0; i < 3; i++) instances.push(await postgresService(config, url));
  return instances;
}

const stopAll = (instances: readonly Instance[]) => Promise.all(instances.map((instance) => instance.stop()));

/** The outbox's events of one type, as the first instance's database holds them. */
async function outboxEvents(instance: Instance, type: string) {
  return (await instance.db.$client.unsafe("SELECT id, payload FROM webhook_events WHERE type = $1", [type])) as {
    id: string;
    payload: string;
  }[];
}

const severalChecks = () => Bun.sleep(CHECK_MS * 10);

test("three instances reading one low executor balance raise one executor.low_balance per crossing", async () => {
  const executor = firstExecutor();
  const threshold = 10n ** 18n;
  const original = await nativeBalanceOf("bsc", executor);
  const instances = await threeInstances({ executorAlertWei: { bsc: threshold.toString() } });
  const mine = () => receiver.of("executor.low_balance", (data) => data.address === executor);
  const ownEvents = async () =>
    (await outboxEvents(instances[0] as Instance, "executor.low_balance")).filter(
      (event) => JSON.parse(event.payload ?? "{}").address?.toLowerCase() === executor.toLowerCase(),
    );
  try {
    await setNativeBalance("bsc", executor, threshold - 1n);
    await until("the executor.low_balance", () => mine().length === 1);
    await severalChecks();
    expect(mine()).toHaveLength(1);
    expect(await ownEvents()).toHaveLength(1);

    await setNativeBalance("bsc", executor, original);
    await severalChecks();
    await setNativeBalance("bsc", executor, threshold - 1n);
    await until("the second executor.low_balance", () => mine().length === 2);
    await severalChecks();
    expect(mine()).toHaveLength(2);
    expect(await ownEvents()).toHaveLength(2);
    expect(receiver.rejected).toEqual([]);
  } finally {
    await setNativeBalance("bsc", executor, original);
    await stopAll(instances);
  }
}, 60_000);

test("three instances reading one low paymaster deposit raise one paymaster.low_deposit per crossing", async () => {
  const deposit = await paymasterDeposit("bsc");
  const taken = deposit / 2n;
  const instances = await threeInstances({ paymasterAlertWei: { bsc: (deposit - deposit / 4n).toString() } });
  const mine = () => receiver.of("paymaster.low_deposit", (data) => data.network === "bsc");
  let withdrawn = 0n;
  try {
    await withdrawDeposit("bsc", taken);
    withdrawn += taken;
    await until("the paymaster.low_deposit", () => mine().length === 1);
    await severalChecks();
    expect(mine()).toHaveLength(1);
    expect(await outboxEvents(instances[0] as Instance, "paymaster.low_deposit")).toHaveLength(1);

    await addDeposit("bsc", taken);
    withdrawn -= taken;
    await severalChecks();
    await withdrawDeposit("bsc", taken);
    withdrawn += taken;
    await until("the second paymaster.low_deposit", () => mine().length === 2);
    await severalChecks();
    expect(mine()).toHaveLength(2);
    expect(await outboxEvents(instances[0] as Instance, "paymaster.low_deposit")).toHaveLength(2);
  } finally {
    if (withdrawn > 0n) await addDeposit("bsc", withdrawn);
    await stopAll(instances);
  }
}, 60_000);

test("a reading from a node that answers late never re-arms an alert another instance raised since", async () => {
  const executor = firstExecutor();
  const threshold = 10n ** 18n;
  const original = await nativeBalanceOf("bsc", executor);
  const config = alertConfig({ executorAlertWei: { bsc: threshold.toString() } });
  // The node answers every eth_call with what it read 800 ms earlier, as a lagging provider would.
  const late = jsonRpcProxy(chainOf("bsc").info.rpcUrl, {
    rewrite: async (call, answer) => {
      if (call.method === "eth_call") await Bun.sleep(800);
      return answer;
    },
  });
  const bsc = config.networks.bsc as NonNullable<typeof config.networks.bsc>;
  const lagging = { ...config, networks: { ...config.networks, bsc: { ...bsc, rpcUrls: [late.url] } } };
  const url = await createTestDatabase("alerts_late");
  const instances = [await postgresService(config, url), await postgresService(lagging, url)];
  const mine = () => receiver.of("executor.low_balance", (data) => data.address === executor);
  const before = mine().length;
  try {
    await setNativeBalance("bsc", executor, 2n * threshold);
    await chainOf("bsc").test.mine({ blocks: 1 });
    await severalChecks();
    // The drain is a transaction of its own block, as on a real chain.
    await drainFirstExecutor("bsc", threshold / 2n);
    await until("the executor.low_balance", () => mine().length === before + 1);
    // The lagging instance's readings from before the drain land now, and the prompt one reads low again.
    await Bun.sleep(2_000);
    expect(mine()).toHaveLength(before + 1);
    expect(late.counts.get("eth_call") ?? 0).toBeGreaterThan(2);
  } finally {
    await setNativeBalance("bsc", executor, original);
    await chainOf("bsc").test.mine({ blocks: 1 });
    await stopAll(instances);
    late.stop();
  }
}, 60_000);
