ALTER TABLE "meshes" ADD COLUMN "published" boolean DEFAULT false NOT NULL;
