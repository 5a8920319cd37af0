CREATE TABLE "installation" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "installation_one_row" CHECK ("installation"."singleton")
);
--> statement-breakpoint
ALTER TABLE "join_parts" ADD COLUMN "skipped" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "joins" ADD COLUMN "skipped" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "lease_token" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "lease_until" timestamp with time zone;