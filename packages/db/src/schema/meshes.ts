import { boolean, integer, jsonb, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

/** A mesh by name; its logic lives in `mesh_versions`, one row per save. */
export const meshes = pgTable('meshes', {
  id: text('id').primaryKey(),
  name: text('name').notNull().unique(),
  description: text('description'),
  /** The newest saved version number (1-based). */
  latestVersion: integer('latest_version').notNull().default(1),
  /**
   * Offered to other systems as an MCP tool and an A2A agent (packages/entries). Set by a designer
   * or an admin (`meshes.setPublished`, `trellis mesh publish`), never by the mesh file.
   */
  published: boolean('published').notNull().default(false),
  /**
   * The mesh's priority default: its runs start urgent (engine runs/mark-urgent.ts). Set by a
   * designer or an admin (`meshes.setUrgent`), never by the mesh file.
   */
  urgent: boolean('urgent').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** One saved version of a mesh: the `trellis.mesh/v1` file (parsed with zod on write and read). */
export const meshVersions = pgTable(
  'mesh_versions',
  {
    id: text('id').primaryKey(),
    meshId: text('mesh_id')
      .notNull()
      .references(() => meshes.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    /** The mesh file, `layout` included. */
    definition: jsonb('definition').notNull(),
    createdBy: text('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique('mesh_versions_mesh_version').on(t.meshId, t.version)],
);
