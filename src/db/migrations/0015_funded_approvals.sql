CREATE TABLE `funded_approvals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`network` text NOT NULL,
	`payer` text NOT NULL,
	`nonce` integer NOT NULL,
	`token` text NOT NULL,
	`spender` text NOT NULL,
	`approve_raw` text NOT NULL,
	`approve_hash` text NOT NULL,
	`funding_wei` text NOT NULL,
	`funding_tx_hash` text,
	`funding_raw_tx` text,
	`status` text NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `funded_approvals_nonce` ON `funded_approvals` (`network`,`payer`,`nonce`);--> statement-breakpoint
CREATE INDEX `funded_approvals_payer_token` ON `funded_approvals` (`network`,`payer`,`token`);--> statement-breakpoint
CREATE INDEX `funded_approvals_created` ON `funded_approvals` (`network`,`created_at`);