ALTER TABLE `deployment_wallets` ADD `deployment_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `deployment_wallets` ADD `deployment_retry_after` integer;
