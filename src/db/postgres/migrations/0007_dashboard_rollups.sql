CREATE TABLE "dashboard_rollup_hours" (
	"hour" text PRIMARY KEY NOT NULL,
	"built_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dashboard_rollup_state" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dashboard_rollups" (
	"hour" text NOT NULL,
	"network" text NOT NULL,
	"flow" text NOT NULL,
	"source" text NOT NULL,
	"token" text NOT NULL,
	"success" bigint NOT NULL,
	"failed" bigint NOT NULL,
	"volume" numeric(78, 0) NOT NULL,
	"fees" numeric(78, 0) NOT NULL,
	"gas_wei" numeric(78, 0) NOT NULL,
	"gas_known" bigint NOT NULL,
	"gas_unknown" bigint NOT NULL,
	"sponsored_wei" numeric(78, 0) NOT NULL,
	"sponsored_known" bigint NOT NULL,
	"sponsored_unknown" bigint NOT NULL,
	"latency" text NOT NULL,
	CONSTRAINT "dashboard_rollups_hour_network_flow_source_token_pk" PRIMARY KEY("hour","network","flow","source","token")
);
--> statement-breakpoint
CREATE INDEX "eoa_settlements_updated" ON "eoa_settlements" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "eoa_settlements_unconcluded" ON "eoa_settlements" USING btree ("created_at") WHERE "eoa_settlements"."status" IN ('pending', 'sent');--> statement-breakpoint
CREATE INDEX "issued_user_ops_updated" ON "issued_user_ops" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "issued_user_ops_unconcluded" ON "issued_user_ops" USING btree ("created_at") WHERE "issued_user_ops"."status" IN ('sending');--> statement-breakpoint
CREATE INDEX "swap_settlements_updated" ON "swap_settlements" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "swap_settlements_unconcluded" ON "swap_settlements" USING btree ("created_at") WHERE "swap_settlements"."status" IN ('pending', 'sent');--> statement-breakpoint
CREATE INDEX "x402_settlements_updated" ON "x402_settlements" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "x402_settlements_unconcluded" ON "x402_settlements" USING btree ("created_at") WHERE "x402_settlements"."status" IN ('pending', 'sent');--> statement-breakpoint
-- A record deleted (a failed one released to be settled again) leaves its hour's rollup: the hour is built again.
CREATE FUNCTION dashboard_forget_deleted_hour() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM dashboard_rollups WHERE hour = substr(OLD.created_at, 1, 13) || ':00:00.000Z';
  DELETE FROM dashboard_rollup_hours WHERE hour = substr(OLD.created_at, 1, 13) || ':00:00.000Z';
  RETURN OLD;
END $$;--> statement-breakpoint
CREATE TRIGGER eoa_settlements_dashboard_deleted AFTER DELETE ON eoa_settlements FOR EACH ROW EXECUTE FUNCTION dashboard_forget_deleted_hour();--> statement-breakpoint
CREATE TRIGGER x402_settlements_dashboard_deleted AFTER DELETE ON x402_settlements FOR EACH ROW EXECUTE FUNCTION dashboard_forget_deleted_hour();--> statement-breakpoint
CREATE TRIGGER swap_settlements_dashboard_deleted AFTER DELETE ON swap_settlements FOR EACH ROW EXECUTE FUNCTION dashboard_forget_deleted_hour();--> statement-breakpoint
CREATE TRIGGER issued_user_ops_dashboard_deleted AFTER DELETE ON issued_user_ops FOR EACH ROW WHEN (OLD.status <> 'issued') EXECUTE FUNCTION dashboard_forget_deleted_hour();
