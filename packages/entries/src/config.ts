/**
 * The entries' configuration, owned by the admin (a JSON file named by TRELLIS_ENTRIES_CONFIG, or
 * given in code), never by a mesh file: which NATS subjects start which meshes, which SMTP
 * recipients map to which meshes, who may send mail, and the HTTP bridges' port and waits.
 * Parsed with zod; an error names the field and what was expected.
 */
import { z } from 'zod';
import { IdSchema } from '@trellis/mesh/schema';
import { BadInputError } from '@trellis/engine/errors';

const natsToken = z.string().regex(/^[A-Za-z0-9_.*>-]+$/, 'expected a NATS subject (letters, digits, ".", "_", "-", "*", ">")');

/** One JetStream subscription: messages on `subject` of `stream` start runs of `mesh`. */
export const EventBindingSchema = z
  .object({
    stream: z.string().regex(/^[A-Za-z0-9_-]+$/, 'expected a stream name (letters, digits, "_", "-")'),
    subject: natsToken,
    mesh: IdSchema,
    /** Durable consumer name; default `trellis-<mesh>`. */
    consumer: z.string().regex(/^[A-Za-z0-9_-]+$/, 'expected a consumer name (letters, digits, "_", "-")').optional(),
    /** Where each run's answer is published (core NATS); none when absent. */
    replySubject: natsToken.optional(),
    /** Seconds JetStream waits for the ack before it redelivers (the run must be committed by then). */
    ackWaitSeconds: z.number().int().min(1).max(3600).default(30),
    /** Longest wait for a run's end before its answer is published as still running, in seconds. */
    answerWaitSeconds: z.number().int().min(0).max(86_400).default(300),
  })
  .strict();

/** One SMTP recipient address mapped to a mesh. */
export const MailRouteSchema = z.object({ to: z.string().min(3).max(320), mesh: IdSchema }).strict();

export const EntriesConfigSchema = z
  .object({
    http: z
      .object({
        port: z.number().int().min(0).max(65_535).default(3030),
        host: z.string().default('127.0.0.1'),
        /** The public base URL agent cards name (default `http://<host>:<port>`). */
        publicUrl: z.url().optional(),
        /** How long an MCP call or an A2A message/send waits for the run to end, in seconds. */
        waitSeconds: z.number().min(0).max(600).default(30),
      })
      .strict()
      .optional(),
    nats: z
      .object({
        servers: z.string().default('nats://127.0.0.1:4222'),
        bindings: z.array(EventBindingSchema).default([]),
      })
      .strict()
      .optional(),
    smtp: z
      .object({
        port: z.number().int().min(0).max(65_535).default(2525),
        host: z.string().default('127.0.0.1'),
        /** Largest message accepted, in bytes (announced with the SIZE extension, RFC 1870). */
        maxBytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(10 * 1024 * 1024),
        /** Sender addresses (`a@b.test`) or domains (`@b.test`) allowed; the policy refuses everyone else. */
        allowedSenders: z.array(z.string().min(2).max(320)).default([]),
        routes: z.array(MailRouteSchema).default([]),
      })
      .strict()
      .optional(),
  })
  .strict();

/** The parsed configuration. */
export type EntriesConfig = z.infer<typeof EntriesConfigSchema>;
/** One event binding, defaults applied. */
export type EventBinding = z.infer<typeof EventBindingSchema>;

/**
 * Parses a configuration object.
 * @throws BadInputError naming the first bad field (e.g. `nats.bindings.0.mesh: expected …`).
 */
export function parseEntriesConfig(value: unknown, where = 'TRELLIS_ENTRIES_CONFIG'): EntriesConfig {
  const parsed = EntriesConfigSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new BadInputError(`${where}: ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'malformed'}`);
}
