ALTER TABLE "funded_approvals" ADD COLUMN "funding_fee_wei" text;--> statement-breakpoint
ALTER TABLE "funded_approvals" ADD COLUMN "approve_cost_wei" text;--> statement-breakpoint
ALTER TABLE "funded_approvals" ADD COLUMN "kept_wei" text;