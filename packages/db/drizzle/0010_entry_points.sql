-- Entry points (issue 13): how runs were asked for and their idempotency keys, signed webhooks,
-- their refusals and owed callbacks, and schedules. (The snapshot of this migration also records
-- the tables of 0005-0007, which the 0009 snapshot lacked; none of them is created again here.)
CREATE TABLE "run_entries" (
	"run_id" text PRIMARY KEY NOT NULL,
	"entry" text NOT NULL,
	"idempotency_key" text,
	"fingerprint" text NOT NULL,
	"actor_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "schedules" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"mesh_id" text NOT NULL,
	"cron" text NOT NULL,
	"timezone" text NOT NULL,
	"input" jsonb NOT NULL,
	"missed" text DEFAULT 'skip' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"next_at" timestamp with time zone,
	"last_tick_at" timestamp with time zone,
	"last_run_id" text,
	"last_error" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "schedules_name_unique" UNIQUE("name"),
	CONSTRAINT "schedules_missed" CHECK ("schedules"."missed" in ('skip', 'run_once'))
);
--> statement-breakpoint
CREATE TABLE "run_callbacks" (
	"run_id" text PRIMARY KEY NOT NULL,
	"webhook_id" text NOT NULL,
	"url" text NOT NULL,
	"state" text DEFAULT 'waiting' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "run_callbacks_state" CHECK ("run_callbacks"."state" in ('waiting', 'delivered', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "webhook_refusals" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"webhook_id" text NOT NULL,
	"reason" text NOT NULL,
	"detail" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"mesh_id" text NOT NULL,
	"secret_name" text NOT NULL,
	"callback_url" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhooks_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "run_entries_idempotency_key_idx" ON "run_entries" USING btree ("idempotency_key") WHERE "run_entries"."idempotency_key" is not null;
--> statement-breakpoint
CREATE INDEX "schedules_due_idx" ON "schedules" USING btree ("next_at") WHERE "schedules"."enabled";
--> statement-breakpoint
CREATE INDEX "run_callbacks_open_idx" ON "run_callbacks" USING btree ("next_at") WHERE "run_callbacks"."state" = 'waiting';
--> statement-breakpoint
CREATE INDEX "webhook_refusals_webhook_idx" ON "webhook_refusals" USING btree ("webhook_id","at");
