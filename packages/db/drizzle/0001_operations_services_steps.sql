CREATE TABLE "action_item_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"item_id" text NOT NULL,
	"action" text NOT NULL,
	"actor" text,
	"detail" jsonb,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "action_item_runs" (
	"item_id" text NOT NULL,
	"run_id" text NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "action_item_runs_item_id_run_id_pk" PRIMARY KEY("item_id","run_id")
);
--> statement-breakpoint
CREATE TABLE "action_items" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"mesh_id" text NOT NULL,
	"mesh_name" text NOT NULL,
	"cause" text,
	"member" text,
	"member_label" text,
	"detail" text,
	"approval_id" text,
	"state" text DEFAULT 'open' NOT NULL,
	"assignee" text,
	"run_count" integer DEFAULT 0 NOT NULL,
	"first_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolved_by" text,
	"resolution" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "approvals" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"mesh_id" text NOT NULL,
	"mesh_name" text NOT NULL,
	"member" text NOT NULL,
	"member_label" text,
	"children" jsonb NOT NULL,
	"leaf" jsonb,
	"status" text DEFAULT 'pending' NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"comment" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "engine_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"run_id" text,
	"item_id" text,
	"mesh_id" text,
	"status" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "run_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"version_choice" text NOT NULL,
	"mesh_version" integer NOT NULL,
	"previous_version" integer NOT NULL,
	"members" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"republished" integer DEFAULT 0 NOT NULL,
	"previous_status" text NOT NULL,
	"previous_cause" text,
	"previous_cause_member" text,
	"previous_cause_message" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "run_attempts_run_attempt" UNIQUE("run_id","attempt")
);
--> statement-breakpoint
CREATE TABLE "service_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"member" text NOT NULL,
	"service" text NOT NULL,
	"status" text DEFAULT 'waiting' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claim_deadline" timestamp with time zone NOT NULL,
	"claimed_by" text,
	"claimed_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"claims" integer DEFAULT 0 NOT NULL,
	"output" jsonb,
	"error" text,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "services" (
	"name" text PRIMARY KEY NOT NULL,
	"key_hash" text NOT NULL,
	"key_prefix" text NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "parent_run_id" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "parent_message_id" text;--> statement-breakpoint
CREATE INDEX "action_item_history_item_idx" ON "action_item_history" USING btree ("item_id","id");--> statement-breakpoint
CREATE INDEX "action_item_runs_run_idx" ON "action_item_runs" USING btree ("run_id");--> statement-breakpoint
CREATE UNIQUE INDEX "action_items_open_group_idx" ON "action_items" USING btree ("mesh_id","cause") WHERE "action_items"."kind" = 'failure' and "action_items"."state" <> 'resolved';--> statement-breakpoint
CREATE UNIQUE INDEX "action_items_approval_idx" ON "action_items" USING btree ("approval_id");--> statement-breakpoint
CREATE INDEX "action_items_state_seen_idx" ON "action_items" USING btree ("state","last_seen");--> statement-breakpoint
CREATE INDEX "approvals_run_idx" ON "approvals" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "approvals_status_idx" ON "approvals" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "run_attempts_created_idx" ON "run_attempts" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "service_jobs_open_idx" ON "service_jobs" USING btree ("service","created_at") WHERE "service_jobs"."status" in ('waiting', 'claimed');--> statement-breakpoint
CREATE UNIQUE INDEX "runs_parent_message_idx" ON "runs" USING btree ("parent_message_id") WHERE "runs"."parent_message_id" is not null;--> statement-breakpoint
CREATE INDEX "runs_created_idx" ON "runs" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "runs_cause_created_idx" ON "runs" USING btree ("cause","created_at") WHERE "runs"."cause" is not null;--> statement-breakpoint
CREATE INDEX "runs_ended_idx" ON "runs" USING btree ("ended_at","id");--> statement-breakpoint
CREATE INDEX "runs_duration_idx" ON "runs" USING btree (("ended_at" - coalesce("started_at", "created_at")),"id");--> statement-breakpoint
CREATE INDEX "runs_id_prefix_idx" ON "runs" USING btree ("id" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "runs_input_name_prefix_idx" ON "runs" USING btree (lower("input_name") text_pattern_ops);--> statement-breakpoint
CREATE INDEX "runs_failed_at_idx" ON "runs" USING btree (coalesce("ended_at", "moved_at")) WHERE "runs"."cause" is not null;