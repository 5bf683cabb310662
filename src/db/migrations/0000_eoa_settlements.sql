CREATE TABLE `eoa_settlements` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`network` text NOT NULL,
	`payer` text NOT NULL,
	`nonce` text NOT NULL,
	`token` text NOT NULL,
	`recipient` text NOT NULL,
	`amount` text NOT NULL,
	`valid_after` integer NOT NULL,
	`valid_before` integer NOT NULL,
	`signature` text NOT NULL,
	`status` text NOT NULL,
	`tx_hash` text,
	`raw_tx` text,
	`block_number` integer,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `eoa_settlements_authorization` ON `eoa_settlements` (`network`,`payer`,`nonce`);