/**
 * meshes.save: a new version of an existing mesh, naming the version it was based on.
 * A stale base is answered as a conflict (nothing saved); an unreadable file is refused with findings.
 */
import { z } from 'zod';
import { saveMesh } from '@trellis/engine/meshes/save-mesh';
import { MeshIdSchema, SaveResultSchema } from '../../schemas';
import { designerProcedure } from '../../trpc';

export const save = designerProcedure
  .input(z.object({ meshId: MeshIdSchema, baseVersion: z.number().int().nonnegative(), definition: z.unknown() }))
  .output(SaveResultSchema)
  .mutation(({ ctx, input }) => saveMesh(ctx.db, { ...input, userId: ctx.user.id }));
