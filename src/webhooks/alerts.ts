import type { NetworkRuntime, Networks } from "../chain/networks";
import { smartWalletSettingsOf } from "../config/capabilities";
import type { Config } from "../config/schema";
import { WEBHOOK_DEFAULTS } from "../config/webhooks";
import { executorAlertWei, paymasterAlertWei } from "../dashboard/attention";
import { type Logger, shortReason } from "../logger";
import type { NetworkBalances } from "../status/balances";
import { OPERATOR_EVENTS } from "./event-types";
import type { WebhookEndpoint } from "./settings";

export type OperatorEventType = (typeof OPERATOR_EVENTS)[number];

/** One reading of one figure against its threshold, as `webhooks.alert` takes it. */
export type OperatorAlert = {
  type: OperatorEventType;
  network: string;
  /** The address the figure is about (an executor, a paymaster): part of the alert's key. */
  subject: string;
  below: boolean;
  /** The block the figure was read at. */
  block: bigint;
  data: Record<string, unknown>;
};

/**
 * What one reading of a network's balances says of each alert: every executor's native balance against
 * dashboard.executorAlertWei, and the paymaster's EntryPoint deposit against dashboard.paymasterAlertWei, the
 * thresholds the dashboard flags with. A figure at its threshold is not below it.
 */
export function alertsOf(
  config: Config,
  network: Pick<NetworkRuntime, "name" | "config">,
  balances: NetworkBalances,
): OperatorAlert[] {
  const name = network.name;
  const executorAlert = executorAlertWei(config, name);
  const alerts: OperatorAlert[] = balances.executors.map(({ address, balance }) => ({
    type: "executor.low_balance",
    network: name,
    subject: address,
    below: balance < executorAlert,
    block: balances.block,
    data: { network: name, address, balanceWei: balance.toString(), alertBelowWei: executorAlert.toString() },
  }));
  const wallet = smartWalletSettingsOf(network.config);
  if (wallet && balances.paymasterDeposit !== null) {
    const depositAlert = paymasterAlertWei(config, name);
    alerts.push({
      type: "paymaster.low_deposit",
      network: name,
      subject: wallet.paymaster,
      below: balances.paymasterDeposit < depositAlert,
      block: balances.block,
      data: {
        network: name,
        paymaster: wallet.paymaster,
        entryPoint: wallet.entryPoint,
        depositWei: balances.paymasterDeposit.toString(),
        alertBelowWei: depositAlert.toString(),
      },
    });
  }
  return alerts;
}

export type BalanceWatchDeps = {
  config: Config;
  networks: Pick<Networks, "all">;
  logger: Logger;
  endpoints: readonly WebhookEndpoint[];
  /** One batched read of a network's balances (src/status/balances.ts); null when the chain did not answer. */
  read(network: NetworkRuntime): Promise<NetworkBalances | null>;
  /** Records a reading; the crossing's one event is raised by whichever instance flips the alert's state. */
  raise(alert: OperatorAlert): Promise<boolean>;
};

/**
 * The operator's alerts: every `webhooks.balanceCheckMs` (and once at start) each network's executors' balances and
 * paymaster deposit are read and recorded, so that a figure falling below its threshold raises one event per
 * crossing (the database decides which instance raises it). It reads nothing unless an endpoint lists one of the
 * alerts' events; a network whose chain does not answer leaves its alerts as they were.
 */
export function createBalanceWatch(deps: BalanceWatchDeps) {
  const watched = new Set<string>(
    deps.endpoints
      .flatMap((endpoint) => endpoint.events ?? [])
      .filter((type) => OPERATOR_EVENTS.includes(type as never)),
  );
  const everyMs = deps.config.webhooks?.balanceCheckMs ?? WEBHOOK_DEFAULTS.balanceCheckMs;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  async function checkNetwork(network: NetworkRuntime) {
    try {
      const balances = await deps.read(network);
      if (!balances) return;
      for (const alert of alertsOf(deps.config, network, balances)) {
        if (stopped) return;
        if (watched.has(alert.type)) await deps.raise(alert);
      }
    } catch (error) {
      deps.logger.warn({ event: "balance_alert_check_failed", network: network.name, reason: shortReason(error) });
    }
  }

  /** One round over every network; a round still running is joined, never doubled. */
  function check(): Promise<void> {
    const round = async () => {
      await Promise.all(deps.networks.all().map(checkNetwork));
    };
    running ??= round().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    /** The alert events some endpoint receives: what the watch reads for. */
    watched,
    check,
    start() {
      if (watched.size === 0) return;
      void check();
      timer = setInterval(() => void check(), everyMs);
      timer.unref?.();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

export type BalanceWatch = ReturnType<typeof createBalanceWatch>;
