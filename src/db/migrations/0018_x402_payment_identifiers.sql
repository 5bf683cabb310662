CREATE TABLE `x402_payment_identifiers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`payer` text NOT NULL,
	`identifier` text NOT NULL,
	`payload` text NOT NULL,
	`network` text NOT NULL,
	`contract` text NOT NULL,
	`nonce` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `x402_payment_identifiers_key` ON `x402_payment_identifiers` (`payer`,`identifier`);