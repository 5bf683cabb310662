CREATE TABLE `issued_user_ops` (
	`user_op_hash` text PRIMARY KEY NOT NULL,
	`network` text NOT NULL,
	`kind` text NOT NULL,
	`sender` text NOT NULL,
	`owner` text NOT NULL,
	`user_op` text NOT NULL,
	`context` text NOT NULL,
	`status` text NOT NULL,
	`tx_hash` text,
	`result` text,
	`expires_at` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
