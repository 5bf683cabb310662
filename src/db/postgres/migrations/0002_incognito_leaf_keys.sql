CREATE INDEX "issued_user_ops_leaf" ON "issued_user_ops" USING btree ((coalesce("context"::jsonb ->> 'commitment', "context"::jsonb ->> 'changeCommitment'))) WHERE "issued_user_ops"."kind" = 'incognito';
--> statement-breakpoint
CREATE INDEX "incognito_leaves_commitment" ON "incognito_leaves" USING btree ("network","pool","commitment");
