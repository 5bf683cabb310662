CREATE TABLE `incognito_leaves` (
	`network` text NOT NULL,
	`pool` text NOT NULL,
	`leaf_index` integer NOT NULL,
	`commitment` text NOT NULL,
	`root` text NOT NULL,
	`block_number` integer NOT NULL,
	PRIMARY KEY(`network`, `pool`, `leaf_index`)
);
--> statement-breakpoint
CREATE TABLE `incognito_sync` (
	`network` text NOT NULL,
	`pool` text NOT NULL,
	`next_block` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`network`, `pool`)
);
--> statement-breakpoint
CREATE INDEX `issued_user_ops_nullifier` ON `issued_user_ops` (json_extract(`context`, '$.nullifierHash')) WHERE `kind` = 'incognito';
