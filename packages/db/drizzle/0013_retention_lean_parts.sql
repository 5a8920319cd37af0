ALTER TABLE "runs" ADD COLUMN "pruned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "summary" jsonb;--> statement-breakpoint
ALTER TABLE "join_parts" ALTER COLUMN "payload" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "join_parts" DROP CONSTRAINT "join_parts_run_id_member_key_message_id_pk";--> statement-breakpoint
ALTER TABLE "join_parts" ADD CONSTRAINT "join_parts_message_id_member_pk" PRIMARY KEY("message_id","member");--> statement-breakpoint
CREATE INDEX "join_parts_key_idx" ON "join_parts" USING btree ("key");
