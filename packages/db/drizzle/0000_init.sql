CREATE TABLE "join_parts" (
	"run_id" text NOT NULL,
	"member" text NOT NULL,
	"key" text NOT NULL,
	"message_id" text NOT NULL,
	"seq" integer NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "join_parts_run_id_member_key_message_id_pk" PRIMARY KEY("run_id","member","key","message_id")
);
--> statement-breakpoint
CREATE TABLE "joins" (
	"run_id" text NOT NULL,
	"member" text NOT NULL,
	"key" text NOT NULL,
	"expected" integer NOT NULL,
	"received" integer DEFAULT 0 NOT NULL,
	"fired_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "joins_run_id_member_key_pk" PRIMARY KEY("run_id","member","key")
);
--> statement-breakpoint
CREATE TABLE "mesh_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"mesh_id" text NOT NULL,
	"version" integer NOT NULL,
	"definition" jsonb NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mesh_versions_mesh_version" UNIQUE("mesh_id","version")
);
--> statement-breakpoint
CREATE TABLE "meshes" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"latest_version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "meshes_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"member" text NOT NULL,
	"pool" text DEFAULT 'default' NOT NULL,
	"channel" text,
	"seq" integer DEFAULT 0 NOT NULL,
	"parent_id" text,
	"depth" integer DEFAULT 0 NOT NULL,
	"frames" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"void" boolean DEFAULT false NOT NULL,
	"payload" jsonb NOT NULL,
	"output" jsonb,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"requeues" integer DEFAULT 0 NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"mesh_id" text NOT NULL,
	"mesh_name" text NOT NULL,
	"mesh_version" integer NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"cause" text,
	"cause_member" text,
	"cause_message" text,
	"input_name" text,
	"input" jsonb NOT NULL,
	"output" jsonb,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"moved_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text DEFAULT 'member' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
ALTER TABLE "mesh_versions" ADD CONSTRAINT "mesh_versions_mesh_id_meshes_id_fk" FOREIGN KEY ("mesh_id") REFERENCES "public"."meshes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messages_run_idx" ON "messages" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "messages_open_idx" ON "messages" USING btree ("run_id") WHERE "messages"."status" <> 'done';--> statement-breakpoint
CREATE INDEX "messages_outbox_idx" ON "messages" USING btree ("created_at","id") WHERE "messages"."status" in ('pending', 'running');--> statement-breakpoint
CREATE INDEX "runs_status_created_idx" ON "runs" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "runs_mesh_created_idx" ON "runs" USING btree ("mesh_id","created_at");