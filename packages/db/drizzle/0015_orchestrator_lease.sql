CREATE TABLE "orchestrator_lease" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"token" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"acquired_at" timestamp with time zone DEFAULT now() NOT NULL
);
