import type { NetworkRuntime } from "../chain/networks";
import type { Config } from "../config/schema";
import type { NetworkBalances } from "../status/balances";
import type { DashboardStore, DenyRow } from "./dashboard-store";
import { type Group, gasCostOf } from "./figures";
import type { SettlementRow } from "./records";

// What needs the operator: executors running dry, the paymaster's deposit, records not concluded, payers denied,
// the reasons settlements failed. Balances come from the chain, everything else from the database.

/** An executor below this native balance (wei) is flagged unless the config says otherwise: 0.01 BNB or ETH. */
export const DEFAULT_EXECUTOR_ALERT_WEI = 10n ** 16n;

/**
 * A paymaster whose EntryPoint deposit is below this (wei) is flagged unless the config says otherwise: 0.1 BNB or
 * ETH, the threshold of docs/ops/alerts.yml's PaymasterDepositLow.
 */
export const DEFAULT_PAYMASTER_ALERT_WEI = 10n ** 17n;

/** A record still pending this long after it was created is listed as stuck. */
export const STUCK_AFTER_MS = 5 * 60_000;

/** Rows the attention lists read at most (the newest first). */
export const ATTENTION_ROWS = 50;

export type ExecutorView = {
  network: string;
  address: string;
  /** Native balance in wei; null when the chain did not answer. */
  balanceWei: string | null;
  alertBelowWei: string;
  low: boolean;
  inFlight: number;
  /** The instance holding its key lease (several instances), null without leases. */
  leaseHolder: string | null;
  /** Hours its balance lasts at the last 24 h's spend, shared evenly by the network's executors; null: nothing spent. */
  lastsHours: number | null;
};

export type PaymasterView = {
  network: string;
  depositWei: string | null;
  alertBelowWei: string;
  /** The deposit was read and is below alertBelowWei. */
  low: boolean;
  /** Average actualGasCost of the last 30 days' sponsored UserOps that recorded it. */
  averageSponsoredWei: string | null;
  /** Sponsored UserOps the deposit still pays for at that average. */
  coversUserOps: string | null;
};

export type ErrorView = { reason: string; count: number; lastAt: string };

export const executorAlertWei = (config: Config, network: string) =>
  (config.dashboard?.executorAlertWei as Record<string, bigint | undefined> | undefined)?.[network] ??
  DEFAULT_EXECUTOR_ALERT_WEI;

export const paymasterAlertWei = (config: Config, network: string) =>
  (config.dashboard?.paymasterAlertWei as Record<string, bigint | undefined> | undefined)?.[network] ??
  DEFAULT_PAYMASTER_ALERT_WEI;

/**
 * Executors and the paymaster of one network. `day`: the rows of the last 24 hours; `month`: the sponsored UserOps'
 * groups of the last 30 days.
 */
export function networkAttention(
  config: Config,
  network: NetworkRuntime,
  balances: NetworkBalances | null,
  leases: readonly { network: string; address: string; holder: string; expiresAt: number }[],
  day: readonly SettlementRow[],
  month: readonly Group[],
): { executors: ExecutorView[]; paymaster: PaymasterView } {
  const name = network.name;
  const alert = executorAlertWei(config, name);
  let daySpend = 0n;
  for (const row of day) {
    if (row.network !== name || row.source === "issued_user_ops") continue;
    daySpend += gasCostOf(row) ?? 0n;
  }
  const addresses = network.executor.addresses;
  const share = addresses.length === 0 ? 0n : daySpend / BigInt(addresses.length);
  const inFlight = new Map(network.executor.inFlight().map((each) => [each.address.toLowerCase(), each.count]));
  const now = Date.now();
  const executors = addresses.map((address): ExecutorView => {
    const balance = balances?.executors.find((each) => each.address === address)?.balance ?? null;
    const lease = leases.find(
      (each) => each.network === name && each.address === address.toLowerCase() && each.expiresAt > now,
    );
    return {
      network: name,
      address,
      balanceWei: balance === null ? null : balance.toString(),
      alertBelowWei: alert.toString(),
      low: balance !== null && balance < alert,
      inFlight: inFlight.get(address.toLowerCase()) ?? 0,
      leaseHolder: lease?.holder ?? null,
      lastsHours: balance === null || share === 0n ? null : (Number((balance * 1000n) / share) / 1000) * 24,
    };
  });
  let sponsored = 0n;
  let known = 0n;
  for (const group of month) {
    if (group.network !== name || group.source !== "issued_user_ops") continue;
    sponsored += group.sponsoredWei;
    known += BigInt(group.sponsoredKnown);
  }
  const average = known === 0n ? null : sponsored / known;
  const deposit = balances?.paymasterDeposit ?? null;
  const depositAlert = paymasterAlertWei(config, name);
  return {
    executors,
    paymaster: {
      network: name,
      depositWei: deposit === null ? null : deposit.toString(),
      alertBelowWei: depositAlert.toString(),
      low: deposit !== null && deposit < depositAlert,
      averageSponsoredWei: average === null ? null : average.toString(),
      coversUserOps: deposit === null || average === null || average === 0n ? null : (deposit / average).toString(),
    },
  };
}

/** Failed records of the rows grouped by their stored reason, most frequent first. */
export function errorsByReason(rows: readonly SettlementRow[]): ErrorView[] {
  const reasons = new Map<string, ErrorView>();
  for (const row of rows) {
    if (row.status !== "failed") continue;
    const reason = (row.error ?? "unknown").slice(0, 120);
    const seen = reasons.get(reason);
    if (!seen) reasons.set(reason, { reason, count: 1, lastAt: row.createdAt });
    else {
      seen.count += 1;
      if (row.createdAt > seen.lastAt) seen.lastAt = row.createdAt;
    }
  }
  return [...reasons.values()].sort((a, b) => b.count - a.count || (a.lastAt < b.lastAt ? 1 : -1));
}

/** Payers and owners the deny counters refuse now (their kind's threshold reached within its window). */
export async function deniedNow(config: Config, store: DashboardStore): Promise<(DenyRow & { denied: boolean })[]> {
  const widest = Math.max(config.denyWindowSeconds, config.denySwapsWindowSeconds);
  const now = Math.floor(Date.now() / 1000);
  const rows = await store.denied(now - widest, ATTENTION_ROWS);
  return rows.map((row) => {
    const swap = row.kind.startsWith("swap_");
    const threshold = swap ? config.denySwapsAfterReverts : config.denyAfterReverts;
    const window = swap ? config.denySwapsWindowSeconds : config.denyWindowSeconds;
    return { ...row, denied: row.reverts >= threshold && row.lastRevertAt >= now - window };
  });
}
