/**
 * Reading a bridge caller's arguments into a run input: the fields every bridge offers (`text`,
 * `payload`, `name`), checked here for shape only. Whether the input itself is acceptable (exactly one
 * form, UTF-8, size, no NUL) is the engine's start-run use case's decision, the same for every entry.
 */
import { z } from 'zod';
import { BadInputError } from '@trellis/engine/errors';
import type { EntryStart } from './entry-run';

const ArgsSchema = z
  .object({
    text: z.string({ error: 'expected a string' }).optional(),
    payload: z.record(z.string(), z.unknown(), { error: 'expected a JSON object' }).optional(),
    name: z.string({ error: 'expected a string' }).max(500, { error: 'expected at most 500 characters' }).optional(),
  }, { error: 'expected an object with text or payload' })
  .strict();

/**
 * The run input named by `args` (`where` prefixes the field in errors, e.g. `arguments`).
 * @throws BadInputError naming the field and what was expected.
 */
export function runInputOf(args: unknown, where: string): EntryStart['input'] {
  const parsed = ArgsSchema.safeParse(args ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.length ? `${where}.${issue.path.join('.')}` : where;
    const message = issue?.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')}; expected text, payload or name` : (issue?.message ?? 'malformed');
    throw new BadInputError(`${path}: ${message}`);
  }
  const { text, payload, name } = parsed.data;
  return { ...(name !== undefined ? { name } : {}), ...(text !== undefined ? { text } : {}), ...(payload !== undefined ? { payload } : {}) };
}
