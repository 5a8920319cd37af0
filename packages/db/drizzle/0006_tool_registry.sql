CREATE TABLE "agent_spend" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"mesh_id" text NOT NULL,
	"member" text NOT NULL,
	"model" text NOT NULL,
	"prompt_tokens" integer NOT NULL,
	"completion_tokens" integer NOT NULL,
	"cost_usd" double precision,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tool_calls" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"message_id" text,
	"member" text NOT NULL,
	"tool" text NOT NULL,
	"server" text,
	"outcome" text NOT NULL,
	"detail" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tool_servers" (
	"name" text PRIMARY KEY NOT NULL,
	"transport" text NOT NULL,
	"config" jsonb NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "message_count" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE INDEX "agent_spend_run_idx" ON "agent_spend" USING btree ("run_id","member");--> statement-breakpoint
CREATE INDEX "agent_spend_day_idx" ON "agent_spend" USING btree ("mesh_id","member","at");--> statement-breakpoint
CREATE INDEX "tool_calls_run_idx" ON "tool_calls" USING btree ("run_id","at");