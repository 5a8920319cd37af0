ALTER TABLE "runs" ADD COLUMN "admission" jsonb;--> statement-breakpoint
CREATE INDEX "runs_admission_waiting_idx" ON "runs" USING btree ("id") WHERE "runs"."admission" ->> 'verdict' = 'wait' and not ("runs"."admission" ? 'settledAt');--> statement-breakpoint
CREATE INDEX "agent_spend_model_at_idx" ON "agent_spend" USING btree ("model","at");
