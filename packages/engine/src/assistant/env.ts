/**
 * The assistant's model settings, read from the environment (zod-validated). With no model set the
 * assistant answers with its built-in intent matcher.
 *
 * - `TRELLIS_ASSISTANT_MODEL`: the model name sent to the provider (unset: no model).
 * - `TRELLIS_ASSISTANT_BASE_URL`: an OpenAI-compatible endpoint ending in `/v1` (default OpenAI's).
 * - `TRELLIS_ASSISTANT_API_KEY_ENV`: the NAME of the variable holding the API key (default
 *   `OPENAI_API_KEY`); the key itself is read from that variable and kept only in the client.
 */
import { z } from 'zod';

const EnvSchema = z.object({
  TRELLIS_ASSISTANT_MODEL: z.string().trim().optional(),
  TRELLIS_ASSISTANT_BASE_URL: z.string().trim().url('an http(s) URL such as http://127.0.0.1:8080/v1').optional(),
  TRELLIS_ASSISTANT_API_KEY_ENV: z.string().trim().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name').default('OPENAI_API_KEY'),
});

/** A configured model for the assistant. */
export interface AssistantModel {
  model: string;
  baseUrl: string;
  /** The key, or undefined for an endpoint that needs none (a local server). */
  apiKey: string | undefined;
}

/**
 * Reads the assistant's model from `env` (default `process.env`); undefined when no model is set.
 * @throws Error naming the variable when a value is malformed.
 */
export function loadAssistantModel(env: Record<string, string | undefined> = process.env): AssistantModel | undefined {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid setting ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'unreadable'}`);
  }
  const e = parsed.data;
  if (!e.TRELLIS_ASSISTANT_MODEL) return undefined;
  return {
    model: e.TRELLIS_ASSISTANT_MODEL,
    baseUrl: e.TRELLIS_ASSISTANT_BASE_URL ?? 'https://api.openai.com/v1',
    apiKey: env[e.TRELLIS_ASSISTANT_API_KEY_ENV]?.trim() || undefined,
  };
}
