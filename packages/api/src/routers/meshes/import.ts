/**
 * meshes.import: a mesh file uploaded as text becomes a new mesh. Any error reading it refuses the
 * whole file with findings and saves nothing; a name already taken is a conflict (open that mesh and
 * import on its canvas to replace it).
 */
import { z } from 'zod';
import { saveMesh } from '@trellis/engine/meshes/save-mesh';
import { SaveResultSchema } from '../../schemas';
import { designerProcedure } from '../../trpc';

/** Mesh files are small; 5 MB of JSON is far beyond any mesh a person draws. */
const MAX_FILE_CHARS = 5 * 1024 * 1024;

export const importMesh = designerProcedure
  .input(z.object({ text: z.string().max(MAX_FILE_CHARS, 'the mesh file is larger than 5 MB') }))
  .output(SaveResultSchema)
  .mutation(({ ctx, input }) => saveMesh(ctx.db, { definition: input.text, baseVersion: 0, userId: ctx.user.id, imported: true }));
