CREATE TABLE "model_rate_limits" (
	"id" text PRIMARY KEY NOT NULL,
	"model" text NOT NULL,
	"base_url" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"retry_after_ms" integer,
	"until" timestamp with time zone NOT NULL,
	"run_id" text,
	"mesh_id" text,
	"member" text
);
--> statement-breakpoint
CREATE INDEX "model_rate_limits_model_until_idx" ON "model_rate_limits" USING btree ("model","until");
