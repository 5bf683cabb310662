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
CREATE INDEX `issued_user_ops_updated` ON `issued_user_ops` (`updated_at`);--> statement-breakpoint
CREATE INDEX `swap_settlements_updated` ON `swap_settlements` (`updated_at`);--> statement-breakpoint
CREATE INDEX `x402_settlements_updated` ON `x402_settlements` (`updated_at`);