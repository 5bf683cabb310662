CREATE INDEX "eoa_settlements_created" ON "eoa_settlements" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "issued_user_ops_created" ON "issued_user_ops" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "swap_settlements_created" ON "swap_settlements" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "x402_settlements_created" ON "x402_settlements" USING btree ("created_at");