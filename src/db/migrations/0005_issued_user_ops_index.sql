CREATE INDEX `issued_user_ops_recent` ON `issued_user_ops` (`network`,`sender`,`status`,`kind`,`expires_at`);--> statement-breakpoint
CREATE INDEX `issued_user_ops_expiry` ON `issued_user_ops` (`status`,`expires_at`);
