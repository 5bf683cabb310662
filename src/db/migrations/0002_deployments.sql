CREATE TABLE `deployment_batches` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`batch_key` text NOT NULL,
	`network` text NOT NULL,
	`flow` text NOT NULL,
	`owner` text NOT NULL,
	`payer` text NOT NULL,
	`token` text NOT NULL,
	`fee_recipient` text NOT NULL,
	`deployment_fee` text NOT NULL,
	`funding_requested` integer NOT NULL,
	`fee_authorization` text,
	`user_op_hash` text,
	`signed_user_op` text,
	`payment_status` text NOT NULL,
	`payment_tx_hash` text,
	`payment_error` text,
	`result` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deployment_batches_batch_key_unique` ON `deployment_batches` (`batch_key`);--> statement-breakpoint
CREATE TABLE `deployment_wallets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`batch_id` integer NOT NULL,
	`position` integer NOT NULL,
	`network` text NOT NULL,
	`owner` text NOT NULL,
	`wallet_address` text NOT NULL,
	`salt` text NOT NULL,
	`reserved` integer NOT NULL,
	`deployment_status` text NOT NULL,
	`deployment_tx_hash` text,
	`deployment_raw_tx` text,
	`deployment_error` text,
	`funding_requested` integer NOT NULL,
	`funding_amount` text NOT NULL,
	`funding_authorization` text,
	`funding_status` text NOT NULL,
	`funding_tx_hash` text,
	`funding_raw_tx` text,
	`funding_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`batch_id`) REFERENCES `deployment_batches`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deployment_wallets_reserved` ON `deployment_wallets` (`network`,`wallet_address`) WHERE "deployment_wallets"."reserved" = 1;--> statement-breakpoint
CREATE INDEX `deployment_wallets_owner` ON `deployment_wallets` (`owner`);--> statement-breakpoint
CREATE INDEX `deployment_wallets_batch` ON `deployment_wallets` (`batch_id`);