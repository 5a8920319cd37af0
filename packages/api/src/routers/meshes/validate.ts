/**
 * meshes.validate: the findings for a mesh file as the canvas holds it right now, nothing saved.
 * The server is the authority: nested meshes are resolved against the saved ones. An unreadable file
 * answers with the reader's findings (`readable: false`), as an import would be refused.
 */
import { z } from 'zod';
import { nestedResolver } from '@trellis/engine/plan/definition';
import { guardMeshDefinition } from '@trellis/engine/security/definition-guard';
import { parseMeshFile } from '@trellis/mesh/parse';
import { validateMesh } from '@trellis/mesh/validate';
import { FindingSchema } from '../../schemas';
import { protectedProcedure } from '../../trpc';

export const validate = protectedProcedure
  .input(z.object({ definition: z.unknown() }))
  .output(z.object({ readable: z.boolean(), findings: z.array(FindingSchema) }))
  .query(async ({ ctx, input }) => {
    // TODO(engine): a `meshes/check-mesh.ts` use case would make this one call, shared with the CLI's validate.
    guardMeshDefinition(input.definition);
    const parsed = parseMeshFile(input.definition);
    if (!parsed.ok) return { readable: false, findings: parsed.findings };
    return { readable: true, findings: validateMesh(parsed.mesh, await nestedResolver(ctx.db, parsed.mesh)) };
  });
