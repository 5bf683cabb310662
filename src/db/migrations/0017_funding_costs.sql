ALTER TABLE `funded_approvals` ADD `funding_fee_wei` text;--> statement-breakpoint
ALTER TABLE `funded_approvals` ADD `approve_cost_wei` text;--> statement-breakpoint
ALTER TABLE `funded_approvals` ADD `kept_wei` text;