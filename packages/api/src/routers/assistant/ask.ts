/**
 * assistant.ask: one question to the assistant. Answers come from the engine's query functions
 * (through the built-in intent matcher, or a configured model's tool calls). A re-open or marking
 * runs urgent comes back as a `proposal` (its `kind`); it runs only when the next question is an
 * explicit "yes" sent with its token.
 */
import { z } from 'zod';
import { ask as askAssistant, isTimeZone } from '@trellis/engine/assistant/ask';
import { loadAssistantModel } from '@trellis/engine/assistant/env';
import { viewerProcedure } from '../../trpc';

export const ask = viewerProcedure
  .input(
    z.object({
      question: z.string().trim().min(1, 'question: expected some text').max(2000),
      confirmToken: z.string().max(4000).optional(),
      /** The browser's IANA time zone: where the asker's "today" starts (UTC when absent). */
      timeZone: z.string().max(64).refine(isTimeZone, 'timeZone: expected an IANA time zone such as Europe/Paris').optional(),
    }),
  )
  .output(
    z.object({
      answer: z.string(),
      via: z.enum(['matcher', 'model']),
      intent: z.string(),
      proposal: z
        .object({ kind: z.enum(['reopen', 'urgent']), token: z.string(), summary: z.string(), runIds: z.array(z.string()), version: z.enum(['pinned', 'latest']).optional() })
        .optional(),
    }),
  )
  .mutation(({ ctx, input }) =>
    askAssistant(
      ctx.engine,
      {
        question: input.question,
        userId: ctx.user.id,
        role: ctx.user.role,
        ...(input.confirmToken ? { confirmToken: input.confirmToken } : {}),
        ...(input.timeZone ? { timeZone: input.timeZone } : {}),
      },
      loadAssistantModel(),
    ),
  );
