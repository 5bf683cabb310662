CREATE TABLE `key_leases` (
	`network` text NOT NULL,
	`address` text NOT NULL,
	`holder` text NOT NULL,
	`expires_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`taken_from` text,
	PRIMARY KEY(`network`, `address`)
);
