/** meshes.get: one mesh version (the latest unless asked) with the list of its versions. */
import { z } from 'zod';
import { MeshNotFoundError } from '@trellis/engine/errors';
import { getMesh } from '@trellis/engine/meshes/get-mesh';
import { MeshSchema } from '@trellis/mesh/schema';
import { MeshIdSchema } from '../../schemas';
import { protectedProcedure } from '../../trpc';

export const get = protectedProcedure
  .input(z.object({ meshId: MeshIdSchema, version: z.number().int().positive().optional() }))
  .output(
    z.object({
      id: z.string(),
      name: z.string(),
      description: z.string().nullable(),
      version: z.number().int(),
      latestVersion: z.number().int(),
      definition: MeshSchema,
      versions: z.array(z.object({ version: z.number().int(), createdAt: z.date(), createdBy: z.string().nullable() })),
    }),
  )
  .query(async ({ ctx, input }) => {
    const view = await getMesh(ctx.db, input);
    if (!view) throw new MeshNotFoundError(input.version ? `${input.meshId} version ${input.version}` : input.meshId);
    return view;
  });
