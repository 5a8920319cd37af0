ALTER TABLE "users" ALTER COLUMN "role" SET DEFAULT 'viewer';--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "session_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
-- Before roles, every non-admin was a "member" who could edit and run meshes: the closest role.
UPDATE "users" SET "role" = 'designer' WHERE "role" NOT IN ('admin', 'designer', 'operator', 'viewer');--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_role_known" CHECK ("users"."role" in ('admin', 'designer', 'operator', 'viewer'));