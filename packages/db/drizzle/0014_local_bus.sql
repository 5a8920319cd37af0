ALTER TABLE "messages" ADD COLUMN "not_before" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "bus_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "bus_tries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "bus_stalls" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "messages_bus_idx" ON "messages" USING btree ("pool","not_before") WHERE "messages"."status" in ('pending', 'running');
