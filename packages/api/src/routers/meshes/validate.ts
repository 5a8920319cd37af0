/**
 * meshes.validate: the findings for a mesh file as the canvas holds it right now, nothing saved.
 * The server is the authority: nested meshes are resolved against the saved ones. An unreadable file
 * answers with the reader's findings (`readable: false`), as an import would be refused.
 */
import { z } from 'zod';
import { checkMesh } from '@trellis/engine/meshes/check-mesh';
import { FindingSchema } from '../../schemas';
import { protectedProcedure } from '../../trpc';

export const validate = protectedProcedure
  .input(z.object({ definition: z.unknown() }))
  .output(z.object({ readable: z.boolean(), findings: z.array(FindingSchema) }))
  .query(({ ctx, input }) => checkMesh(ctx.db, input.definition));
