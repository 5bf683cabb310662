CREATE TABLE `webhook_alerts` (
	`key` text PRIMARY KEY NOT NULL,
	`below` integer NOT NULL,
	`crossings` integer NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`endpoint` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` text NOT NULL,
	`lease_owner` text,
	`lease_until` text,
	`last_status` integer,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`delivered_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_endpoint` ON `webhook_deliveries` (`event_id`,`endpoint`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`next_attempt_at`) WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint` ON `webhook_deliveries` (`endpoint`,`status`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_created` ON `webhook_deliveries` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`disabled_at` text,
	`disabled_reason` text
);
--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`dedupe_key` text NOT NULL,
	`type` text NOT NULL,
	`source` text NOT NULL,
	`record_id` text,
	`network` text,
	`endpoint` text,
	`payload` text,
	`fanned_out` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_events_dedupe` ON `webhook_events` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `webhook_events_created` ON `webhook_events` (`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_events_record` ON `webhook_events` (`source`,`record_id`);--> statement-breakpoint
CREATE INDEX `webhook_events_waiting` ON `webhook_events` (`created_at`) WHERE "webhook_events"."fanned_out" = 0;--> statement-breakpoint
-- The outbox's events are written by the database itself, in the transaction of the status change that causes
-- them (src/webhooks/event-types.ts names them): a payment concluded, a funded approve's step. A transition is one
-- event (dedupe_key), and a record inserted already concluded is one too.
CREATE TRIGGER `eoa_settlements_webhook_inserted` AFTER INSERT ON `eoa_settlements` WHEN NEW.status NOT IN ('pending', 'sent') BEGIN
  INSERT OR IGNORE INTO `webhook_events` (`id`, `dedupe_key`, `type`, `source`, `record_id`, `network`, `fanned_out`, `created_at`)
  VALUES (lower(hex(randomblob(16))), 'eoa_settlements:' || NEW.id || ':' || NEW.status || ':' || NEW.created_at,
    CASE NEW.status WHEN 'success' THEN 'payment.settled' ELSE 'payment.failed' END,
    'eoa_settlements', CAST(NEW.id AS TEXT), NEW.network, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;--> statement-breakpoint
CREATE TRIGGER `eoa_settlements_webhook_updated` AFTER UPDATE OF status ON `eoa_settlements` WHEN NEW.status NOT IN ('pending', 'sent') AND NEW.status <> OLD.status BEGIN
  INSERT OR IGNORE INTO `webhook_events` (`id`, `dedupe_key`, `type`, `source`, `record_id`, `network`, `fanned_out`, `created_at`)
  VALUES (lower(hex(randomblob(16))), 'eoa_settlements:' || NEW.id || ':' || NEW.status || ':' || NEW.created_at,
    CASE NEW.status WHEN 'success' THEN 'payment.settled' ELSE 'payment.failed' END,
    'eoa_settlements', CAST(NEW.id AS TEXT), NEW.network, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;--> statement-breakpoint
CREATE TRIGGER `x402_settlements_webhook_inserted` AFTER INSERT ON `x402_settlements` WHEN NEW.status NOT IN ('pending', 'sent') BEGIN
  INSERT OR IGNORE INTO `webhook_events` (`id`, `dedupe_key`, `type`, `source`, `record_id`, `network`, `fanned_out`, `created_at`)
  VALUES (lower(hex(randomblob(16))), 'x402_settlements:' || NEW.id || ':' || NEW.status || ':' || NEW.created_at,
    CASE NEW.status WHEN 'success' THEN 'payment.settled' ELSE 'payment.failed' END,
    'x402_settlements', CAST(NEW.id AS TEXT), NEW.network, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;--> statement-breakpoint
CREATE TRIGGER `x402_settlements_webhook_updated` AFTER UPDATE OF status ON `x402_settlements` WHEN NEW.status NOT IN ('pending', 'sent') AND NEW.status <> OLD.status BEGIN
  INSERT OR IGNORE INTO `webhook_events` (`id`, `dedupe_key`, `type`, `source`, `record_id`, `network`, `fanned_out`, `created_at`)
  VALUES (lower(hex(randomblob(16))), 'x402_settlements:' || NEW.id || ':' || NEW.status || ':' || NEW.created_at,
    CASE NEW.status WHEN 'success' THEN 'payment.settled' ELSE 'payment.failed' END,
    'x402_settlements', CAST(NEW.id AS TEXT), NEW.network, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;--> statement-breakpoint
CREATE TRIGGER `swap_settlements_webhook_inserted` AFTER INSERT ON `swap_settlements` WHEN NEW.status NOT IN ('pending', 'sent') BEGIN
  INSERT OR IGNORE INTO `webhook_events` (`id`, `dedupe_key`, `type`, `source`, `record_id`, `network`, `fanned_out`, `created_at`)
  VALUES (lower(hex(randomblob(16))), 'swap_settlements:' || NEW.id || ':' || NEW.status || ':' || NEW.created_at,
    CASE NEW.status WHEN 'success' THEN 'payment.settled' ELSE 'payment.failed' END,
    'swap_settlements', CAST(NEW.id AS TEXT), NEW.network, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;--> statement-breakpoint
CREATE TRIGGER `swap_settlements_webhook_updated` AFTER UPDATE OF status ON `swap_settlements` WHEN NEW.status NOT IN ('pending', 'sent') AND NEW.status <> OLD.status BEGIN
  INSERT OR IGNORE INTO `webhook_events` (`id`, `dedupe_key`, `type`, `source`, `record_id`, `network`, `fanned_out`, `created_at`)
  VALUES (lower(hex(randomblob(16))), 'swap_settlements:' || NEW.id || ':' || NEW.status || ':' || NEW.created_at,
    CASE NEW.status WHEN 'success' THEN 'payment.settled' ELSE 'payment.failed' END,
    'swap_settlements', CAST(NEW.id AS TEXT), NEW.network, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;--> statement-breakpoint
CREATE TRIGGER `issued_user_ops_webhook_inserted` AFTER INSERT ON `issued_user_ops` WHEN NEW.status NOT IN ('issued', 'sending') BEGIN
  INSERT OR IGNORE INTO `webhook_events` (`id`, `dedupe_key`, `type`, `source`, `record_id`, `network`, `fanned_out`, `created_at`)
  VALUES (lower(hex(randomblob(16))), 'issued_user_ops:' || NEW.user_op_hash || ':' || NEW.status || ':' || NEW.created_at,
    CASE NEW.status WHEN 'success' THEN 'payment.settled' ELSE 'payment.failed' END,
    'issued_user_ops', CAST(NEW.user_op_hash AS TEXT), NEW.network, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;--> statement-breakpoint
CREATE TRIGGER `issued_user_ops_webhook_updated` AFTER UPDATE OF status ON `issued_user_ops` WHEN NEW.status NOT IN ('issued', 'sending') AND NEW.status <> OLD.status BEGIN
  INSERT OR IGNORE INTO `webhook_events` (`id`, `dedupe_key`, `type`, `source`, `record_id`, `network`, `fanned_out`, `created_at`)
  VALUES (lower(hex(randomblob(16))), 'issued_user_ops:' || NEW.user_op_hash || ':' || NEW.status || ':' || NEW.created_at,
    CASE NEW.status WHEN 'success' THEN 'payment.settled' ELSE 'payment.failed' END,
    'issued_user_ops', CAST(NEW.user_op_hash AS TEXT), NEW.network, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;--> statement-breakpoint
CREATE TRIGGER `funded_approvals_webhook_inserted` AFTER INSERT ON `funded_approvals` WHEN NEW.status IN ('approve_sent', 'approved', 'diverted', 'reverted', 'refused', 'abandoned') BEGIN
  INSERT OR IGNORE INTO `webhook_events` (`id`, `dedupe_key`, `type`, `source`, `record_id`, `network`, `fanned_out`, `created_at`)
  VALUES (lower(hex(randomblob(16))), 'funded_approvals:' || NEW.id || ':' || NEW.status || ':' || NEW.created_at,
    CASE NEW.status WHEN 'approve_sent' THEN 'onboarding.funded' ELSE 'onboarding.' || NEW.status END,
    'funded_approvals', CAST(NEW.id AS TEXT), NEW.network, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;--> statement-breakpoint
CREATE TRIGGER `funded_approvals_webhook_updated` AFTER UPDATE OF status ON `funded_approvals` WHEN NEW.status IN ('approve_sent', 'approved', 'diverted', 'reverted', 'refused', 'abandoned') AND NEW.status <> OLD.status BEGIN
  INSERT OR IGNORE INTO `webhook_events` (`id`, `dedupe_key`, `type`, `source`, `record_id`, `network`, `fanned_out`, `created_at`)
  VALUES (lower(hex(randomblob(16))), 'funded_approvals:' || NEW.id || ':' || NEW.status || ':' || NEW.created_at,
    CASE NEW.status WHEN 'approve_sent' THEN 'onboarding.funded' ELSE 'onboarding.' || NEW.status END,
    'funded_approvals', CAST(NEW.id AS TEXT), NEW.network, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
