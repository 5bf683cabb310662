CREATE TABLE `dashboard_rollup_hours` (
	`hour` text PRIMARY KEY NOT NULL,
	`built_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `dashboard_rollup_state` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `dashboard_rollups` (
	`hour` text NOT NULL,
	`network` text NOT NULL,
	`flow` text NOT NULL,
	`source` text NOT NULL,
	`token` text NOT NULL,
	`success` integer NOT NULL,
	`failed` integer NOT NULL,
	`volume` text NOT NULL,
	`fees` text NOT NULL,
	`gas_wei` text NOT NULL,
	`gas_known` integer NOT NULL,
	`gas_unknown` integer NOT NULL,
	`sponsored_wei` text NOT NULL,
	`sponsored_known` integer NOT NULL,
	`sponsored_unknown` integer NOT NULL,
	`latency` text NOT NULL,
	PRIMARY KEY(`hour`, `network`, `flow`, `source`, `token`)
);
--> statement-breakpoint
CREATE INDEX `eoa_settlements_updated` ON `eoa_settlements` (`updated_at`);--> statement-breakpoint
CREATE INDEX `eoa_settlements_unconcluded` ON `eoa_settlements` (`created_at`) WHERE "eoa_settlements"."status" IN ('pending', 'sent');--> statement-breakpoint
CREATE INDEX `issued_user_ops_updated` ON `issued_user_ops` (`updated_at`);--> statement-breakpoint
CREATE INDEX `issued_user_ops_unconcluded` ON `issued_user_ops` (`created_at`) WHERE "issued_user_ops"."status" IN ('sending');--> statement-breakpoint
CREATE INDEX `swap_settlements_updated` ON `swap_settlements` (`updated_at`);--> statement-breakpoint
CREATE INDEX `swap_settlements_unconcluded` ON `swap_settlements` (`created_at`) WHERE "swap_settlements"."status" IN ('pending', 'sent');--> statement-breakpoint
CREATE INDEX `x402_settlements_updated` ON `x402_settlements` (`updated_at`);--> statement-breakpoint
CREATE INDEX `x402_settlements_unconcluded` ON `x402_settlements` (`created_at`) WHERE "x402_settlements"."status" IN ('pending', 'sent');--> statement-breakpoint
-- A record deleted (a failed one released to be settled again) leaves its hour's rollup: the hour is built again.
CREATE TRIGGER `eoa_settlements_dashboard_deleted` AFTER DELETE ON `eoa_settlements` BEGIN
  DELETE FROM `dashboard_rollups` WHERE `hour` = substr(OLD.created_at, 1, 13) || ':00:00.000Z';
  DELETE FROM `dashboard_rollup_hours` WHERE `hour` = substr(OLD.created_at, 1, 13) || ':00:00.000Z';
END;--> statement-breakpoint
-- A record deleted (a failed one released to be settled again) leaves its hour's rollup: the hour is built again.
CREATE TRIGGER `x402_settlements_dashboard_deleted` AFTER DELETE ON `x402_settlements` BEGIN
  DELETE FROM `dashboard_rollups` WHERE `hour` = substr(OLD.created_at, 1, 13) || ':00:00.000Z';
  DELETE FROM `dashboard_rollup_hours` WHERE `hour` = substr(OLD.created_at, 1, 13) || ':00:00.000Z';
END;--> statement-breakpoint
-- A record deleted (a failed one released to be settled again) leaves its hour's rollup: the hour is built again.
CREATE TRIGGER `swap_settlements_dashboard_deleted` AFTER DELETE ON `swap_settlements` BEGIN
  DELETE FROM `dashboard_rollups` WHERE `hour` = substr(OLD.created_at, 1, 13) || ':00:00.000Z';
  DELETE FROM `dashboard_rollup_hours` WHERE `hour` = substr(OLD.created_at, 1, 13) || ':00:00.000Z';
END;--> statement-breakpoint
-- A record deleted (a failed one released to be settled again) leaves its hour's rollup: the hour is built again.
CREATE TRIGGER `issued_user_ops_dashboard_deleted` AFTER DELETE ON `issued_user_ops` WHEN OLD.status <> 'issued' BEGIN
  DELETE FROM `dashboard_rollups` WHERE `hour` = substr(OLD.created_at, 1, 13) || ':00:00.000Z';
  DELETE FROM `dashboard_rollup_hours` WHERE `hour` = substr(OLD.created_at, 1, 13) || ':00:00.000Z';
END;
