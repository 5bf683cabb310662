CREATE TABLE `swap_settlements` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`network` text NOT NULL,
	`payer` text NOT NULL,
	`nonce` text NOT NULL,
	`sell_token` text NOT NULL,
	`buy_token` text NOT NULL,
	`sell_amount` text NOT NULL,
	`min_buy_amount` text NOT NULL,
	`recipient` text NOT NULL,
	`fee` text NOT NULL,
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
CREATE UNIQUE INDEX `swap_settlements_authorization` ON `swap_settlements` (`network`,`payer`,`nonce`);
