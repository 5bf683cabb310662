ALTER TABLE "eoa_settlements" ADD COLUMN "payment_id" text;--> statement-breakpoint
ALTER TABLE "issued_user_ops" ADD COLUMN "block_number" bigint;--> statement-breakpoint
ALTER TABLE "swap_settlements" ADD COLUMN "payment_id" text;--> statement-breakpoint
ALTER TABLE "x402_settlements" ADD COLUMN "payment_id" text;--> statement-breakpoint
CREATE INDEX "eoa_settlements_payment_id" ON "eoa_settlements" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "eoa_settlements_tx_hash" ON "eoa_settlements" USING btree ("tx_hash");--> statement-breakpoint
CREATE INDEX "issued_user_ops_tx_hash" ON "issued_user_ops" USING btree ("tx_hash");--> statement-breakpoint
CREATE INDEX "swap_settlements_payment_id" ON "swap_settlements" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "swap_settlements_tx_hash" ON "swap_settlements" USING btree ("tx_hash");--> statement-breakpoint
CREATE INDEX "x402_settlements_payment_id" ON "x402_settlements" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "x402_settlements_tx_hash" ON "x402_settlements" USING btree ("tx_hash");