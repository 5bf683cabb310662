import { describe, expect, test } from "bun:test";
import type { NetworkRuntime } from "../chain/networks";
import type { Config } from "../config/schema";
import { DEFAULT_EXECUTOR_ALERT_WEI, DEFAULT_PAYMASTER_ALERT_WEI } from "../dashboard/attention";
import { createLogger } from "../logger";
import { alertsOf, createBalanceWatch } from "./alerts";

const EXECUTOR = "0x1111111111111111111111111111111111111111";
const PAYMASTER = "0x2222222222222222222222222222222222222222";
const ENTRY_POINT = "0x0000000071727De22E5E9d8BAf0edAc6f37da032";

const wallets = {
  bundlerUrl: "http://bundler",
  paymasterSigner: {},
  contracts: { relayer: EXECUTOR, entryPoint: ENTRY_POINT, factory: EXECUTOR, paymaster: PAYMASTER },
};
const network = (config: object = wallets) => ({ name: "bsc", config }) as unknown as NetworkRuntime;
const config = (dashboard?: object) => ({ dashboard }) as unknown as Config;
const balances = (executor: bigint, deposit: bigint | null) => ({
  block: 7n,
  executors: [{ address: EXECUTOR as `0x${string}`, balance: executor }],
  paymasterDeposit: deposit,
});

describe("alertsOf", () => {
  test("a figure below its default threshold is below; at the threshold it is not", () => {
    const low = alertsOf(config(), network(), balances(DEFAULT_EXECUTOR_ALERT_WEI - 1n, DEFAULT_PAYMASTER_ALERT_WEI));
    expect(low.map((each) => [each.type, each.subject, each.below, each.block])).toEqual([
      ["executor.low_balance", EXECUTOR, true, 7n],
      ["paymaster.low_deposit", PAYMASTER, false, 7n],
    ]);
    expect(low[1]?.data).toEqual({
      network: "bsc",
      paymaster: PAYMASTER,
      entryPoint: ENTRY_POINT,
      depositWei: DEFAULT_PAYMASTER_ALERT_WEI.toString(),
      alertBelowWei: DEFAULT_PAYMASTER_ALERT_WEI.toString(),
    });
  });

  test("the config's thresholds are the network's own", () => {
    const custom = config({ executorAlertWei: { bsc: 5n }, paymasterAlertWei: { bsc: 100n, base: 1n } });
    const [executor, paymaster] = alertsOf(custom, network(), balances(4n, 99n));
    expect(executor?.below).toBe(true);
    expect(executor?.data.alertBelowWei).toBe("5");
    expect(paymaster?.below).toBe(true);
    expect(alertsOf(custom, network(), balances(5n, 100n)).map((each) => each.below)).toEqual([false, false]);
  });

  test("no paymaster alert where smart wallets are not enabled", () => {
    const alerts = alertsOf(config(), network({ contracts: {} }), balances(1n, null));
    expect(alerts.map((each) => each.type)).toEqual(["executor.low_balance"]);
  });
});

describe("createBalanceWatch", () => {
  const watch = (events?: string[]) => {
    const reads: string[] = [];
    const raised: string[] = [];
    const instance = createBalanceWatch({
      config: config(),
      networks: { all: () => [network()] },
      logger: createLogger({ silent: true }),
      endpoints: [{ id: "ops", url: "http://ops", secret: "whsec_x", events: events as never }],
      read: async (each) => {
        reads.push(each.name);
        return balances(0n, 0n);
      },
      raise: async (alert) => {
        raised.push(alert.type);
        return true;
      },
    });
    return { instance, reads, raised };
  };

  test("reads nothing when no endpoint lists an alert", async () => {
    const { instance, reads } = watch(undefined);
    instance.start();
    await instance.stop();
    expect(reads).toEqual([]);
    expect([...instance.watched]).toEqual([]);
  });

  test("records only the alerts some endpoint lists", async () => {
    const { instance, raised } = watch(["paymaster.low_deposit", "payment.settled"]);
    await instance.check();
    expect(raised).toEqual(["paymaster.low_deposit"]);
  });
});
