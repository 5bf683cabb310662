import type { Config } from "../config/schema";
import { WEBHOOK_DEFAULTS } from "../config/webhooks";
import type { WebhookEventType } from "./event-types";

export type WebhookEndpoint = {
  id: string;
  url: string;
  events?: readonly WebhookEventType[];
  networks?: readonly string[];
  /** Lower-cased. */
  payTo?: readonly string[];
  secret: string;
};

/** The webhooks' settings with their defaults, read once from the config. */
export type WebhookSettings = {
  endpoints: readonly WebhookEndpoint[];
  pendingAfterMs: number;
  timeoutMs: number;
  retryScheduleMs: readonly number[];
  retryLimitMs: number;
  retentionMs: number;
  pollMs: number;
};

export function webhookSettings(config: Config): WebhookSettings {
  const input = config.webhooks;
  const retryLimitMs = (input?.retryLimitSeconds ?? WEBHOOK_DEFAULTS.retryLimitSeconds) * 1000;
  return {
    endpoints: (input?.endpoints ?? []).map((endpoint) => ({
      ...endpoint,
      events: endpoint.events as readonly WebhookEventType[] | undefined,
      payTo: endpoint.payTo?.map((address) => address.toLowerCase()),
    })),
    pendingAfterMs: (input?.pendingAfterSeconds ?? WEBHOOK_DEFAULTS.pendingAfterSeconds) * 1000,
    timeoutMs: input?.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs,
    retryScheduleMs: (input?.retryScheduleSeconds ?? WEBHOOK_DEFAULTS.retryScheduleSeconds).map((s) => s * 1000),
    retryLimitMs,
    // Never purge what may still be retried.
    retentionMs: Math.max(
      (input?.retentionSeconds ?? WEBHOOK_DEFAULTS.retentionSeconds) * 1000,
      retryLimitMs + 3_600_000,
    ),
    pollMs: input?.pollMs ?? WEBHOOK_DEFAULTS.pollMs,
  };
}
