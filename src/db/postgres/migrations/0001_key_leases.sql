CREATE TABLE "key_leases" (
	"network" text NOT NULL,
	"address" text NOT NULL,
	"holder" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"heartbeat_at" bigint NOT NULL,
	"taken_from" text,
	CONSTRAINT "key_leases_network_address_pk" PRIMARY KEY("network","address")
);
