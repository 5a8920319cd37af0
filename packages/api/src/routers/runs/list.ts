/**
 * runs.list: the Runs tab. Filters (mesh, status, cause, severity, time range), search by run id or
 * input name prefix, four sorts, and server-side paging with the total that matches.
 */
import { z } from 'zod';
import { CAUSES } from '@trellis/mesh/causes';
import { RUN_SORTS, searchRuns } from '@trellis/engine/ops/search-runs';
import { MeshIdSchema, RUN_STATUSES, RunSummarySchema } from '../../schemas';
import { viewerProcedure } from '../../trpc';

export const SEVERITIES = ['critical', 'project', 'capacity'] as const;

export const list = viewerProcedure
  .input(
    z.object({
      status: z.enum(RUN_STATUSES).optional(),
      meshId: MeshIdSchema.optional(),
      cause: z.enum(CAUSES).optional(),
      severity: z.enum(SEVERITIES).optional(),
      from: z.date().optional(),
      to: z.date().optional(),
      search: z.string().max(200).optional(),
      sort: z.enum(RUN_SORTS).default('started'),
      direction: z.enum(['asc', 'desc']).default('desc'),
      limit: z.number().int().min(1).max(200).default(25),
      offset: z.number().int().nonnegative().default(0),
    }),
  )
  .output(
    z.object({
      items: z.array(RunSummarySchema.extend({ severity: z.enum(SEVERITIES).nullable() })),
      total: z.number().int(),
    }),
  )
  .query(({ ctx, input }) => searchRuns(ctx.db, input));
