CREATE TABLE "egress_rules" (
	"pattern" text PRIMARY KEY NOT NULL,
	"internal" boolean DEFAULT false NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "secrets" (
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"ciphertext" text NOT NULL,
	"iv" text NOT NULL,
	"tag" text NOT NULL,
	"key_id" text NOT NULL,
	"hosts" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_by" text NOT NULL,
	"updated_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "secrets_kind_name_pk" PRIMARY KEY("kind","name"),
	CONSTRAINT "secrets_kind" CHECK ("secrets"."kind" in ('secret', 'connection'))
);
--> statement-breakpoint
-- The restricted role SQL steps on the `trellis` connection run as (docs/security.md, engine
-- src/policy/sql-role.ts): it owns the schema mesh_data and holds no right on Trellis's tables.
-- Roles are shared by every database of a server, so another install may have made it already.
DO $$
BEGIN
  BEGIN
    CREATE ROLE trellis_mesh NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS;
  EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
  END;
  BEGIN
    EXECUTE format('GRANT trellis_mesh TO %I', current_user);
  EXCEPTION WHEN insufficient_privilege OR invalid_grant_operation THEN NULL;
  END;
END $$;
--> statement-breakpoint
CREATE SCHEMA IF NOT EXISTS mesh_data AUTHORIZATION trellis_mesh;
--> statement-breakpoint
-- What would let a step leave the role: set_config('role', …), a function with `SET role = none`
-- or a DO block running RESET ROLE, and temporary tables that shadow Trellis's tables in the
-- session. Revoked from PUBLIC; the engine checks these took effect before it runs a step
-- (a database owner that is not a superuser cannot revoke them, and steps on `trellis` are then refused).
DO $$
BEGIN
  REVOKE EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) FROM PUBLIC;
  REVOKE USAGE ON LANGUAGE sql FROM PUBLIC;
  REVOKE CREATE ON SCHEMA public FROM PUBLIC;
  EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
  REVOKE USAGE ON LANGUAGE plpgsql FROM PUBLIC;
EXCEPTION WHEN insufficient_privilege THEN NULL;
END $$;
