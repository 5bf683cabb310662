CREATE TABLE `deny_counters` (
	`network` text NOT NULL,
	`kind` text NOT NULL,
	`address` text NOT NULL,
	`reverts` integer NOT NULL,
	`last_revert_at` integer NOT NULL,
	`last_reason` text NOT NULL,
	PRIMARY KEY(`network`, `kind`, `address`)
);
