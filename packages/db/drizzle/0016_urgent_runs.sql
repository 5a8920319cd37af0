ALTER TABLE "runs" ADD COLUMN "urgent" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "meshes" ADD COLUMN "urgent" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "runs_urgent_idx" ON "runs" USING btree ("id") WHERE "runs"."urgent" and "runs"."status" in ('queued', 'running', 'stalled');
