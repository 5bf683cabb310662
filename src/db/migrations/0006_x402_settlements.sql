CREATE TABLE `x402_settlements` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`network` text NOT NULL,
	`contract` text NOT NULL,
	`payer` text NOT NULL,
	`nonce` text NOT NULL,
	`recipient` text NOT NULL,
	`amount` text NOT NULL,
	`valid_after` integer NOT NULL,
	`valid_before` integer NOT NULL,
	`signature` text NOT NULL,
	`status` text NOT NULL,
	`success_answered` integer DEFAULT false NOT NULL,
	`tx_hash` text,
	`raw_tx` text,
	`block_number` integer,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `x402_settlements_authorization` ON `x402_settlements` (`network`,`contract`,`payer`,`nonce`);
