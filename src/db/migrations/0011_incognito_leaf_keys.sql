CREATE INDEX `issued_user_ops_leaf` ON `issued_user_ops` (coalesce(json_extract(`context`, '$.commitment'), json_extract(`context`, '$.changeCommitment'))) WHERE `kind` = 'incognito';
--> statement-breakpoint
CREATE INDEX `incognito_leaves_commitment` ON `incognito_leaves` (`network`,`pool`,`commitment`);
