DROP INDEX "messages_open_idx";--> statement-breakpoint
CREATE INDEX "messages_open_idx" ON "messages" USING btree ("run_id") WHERE "messages"."status" not in ('done', 'filtered');