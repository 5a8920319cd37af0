/** audit.verify (admins): checks the whole hash chain and names the first broken entry. */
import { z } from 'zod';
import { verifyAudit } from '@trellis/engine/audit/verify';
import { adminProcedure } from '../../trpc';

export const verify = adminProcedure
  .output(
    z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true), entries: z.number().int(), lastHash: z.string() }),
      z.object({ ok: z.literal(false), entries: z.number().int(), broken: z.object({ seq: z.number().int(), action: z.string(), at: z.date(), reason: z.string() }) }),
    ]),
  )
  .query(({ ctx }) => verifyAudit(ctx.db));
