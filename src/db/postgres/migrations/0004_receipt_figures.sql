ALTER TABLE "deployment_wallets" ADD COLUMN "deployment_gas_used" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "deployment_wallets" ADD COLUMN "deployment_effective_gas_price" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "deployment_wallets" ADD COLUMN "deployment_sent_at" text;--> statement-breakpoint
ALTER TABLE "deployment_wallets" ADD COLUMN "deployment_mined_at" text;--> statement-breakpoint
ALTER TABLE "deployment_wallets" ADD COLUMN "funding_gas_used" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "deployment_wallets" ADD COLUMN "funding_effective_gas_price" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "deployment_wallets" ADD COLUMN "funding_sent_at" text;--> statement-breakpoint
ALTER TABLE "deployment_wallets" ADD COLUMN "funding_mined_at" text;--> statement-breakpoint
ALTER TABLE "eoa_settlements" ADD COLUMN "gas_used" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "eoa_settlements" ADD COLUMN "effective_gas_price" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "eoa_settlements" ADD COLUMN "sent_at" text;--> statement-breakpoint
ALTER TABLE "eoa_settlements" ADD COLUMN "mined_at" text;--> statement-breakpoint
ALTER TABLE "issued_user_ops" ADD COLUMN "gas_used" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "issued_user_ops" ADD COLUMN "effective_gas_price" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "issued_user_ops" ADD COLUMN "actual_gas_cost" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "issued_user_ops" ADD COLUMN "actual_gas_used" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "issued_user_ops" ADD COLUMN "sent_at" text;--> statement-breakpoint
ALTER TABLE "issued_user_ops" ADD COLUMN "mined_at" text;--> statement-breakpoint
ALTER TABLE "swap_settlements" ADD COLUMN "gas_used" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "swap_settlements" ADD COLUMN "effective_gas_price" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "swap_settlements" ADD COLUMN "sent_at" text;--> statement-breakpoint
ALTER TABLE "swap_settlements" ADD COLUMN "mined_at" text;--> statement-breakpoint
ALTER TABLE "x402_settlements" ADD COLUMN "gas_used" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "x402_settlements" ADD COLUMN "effective_gas_price" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "x402_settlements" ADD COLUMN "sent_at" text;--> statement-breakpoint
ALTER TABLE "x402_settlements" ADD COLUMN "mined_at" text;