/**
 * The mesh file, `trellis.mesh/v1` (DESIGN.md §7): zod schemas and the types inferred from them.
 * Members are a discriminated union on `kind`; kind-specific fields are Trellis's own design.
 * Canvas positions live in `layout`, beside the logic and never inside a member.
 */
import { z } from 'zod';
import { compileMeshPattern } from './mesh-pattern';
import { sqlStatementRefusal } from './sql-statement';

/** The only mesh file format this package reads and writes. */
export const MESH_FORMAT = 'trellis.mesh/v1';

/** Member and mesh ids: letters, digits, `-` and `_`, 1–63 characters, starting with a letter or digit. */
export const IdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/, 'expected 1-63 letters, digits, "-" or "_"');

/** A dotted payload field path such as `claim.kind` or `text`. */
export const FieldPathSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, 'expected a field path like a.b.c');

/** Built-in split: cuts a text field into parts, separators kept with their parts (DESIGN.md §5). */
export const SplitStepSchema = z.object({
  type: z.literal('split'),
  /** `page` cuts after each form feed, `line` after each LF, `word` after each run of whitespace. */
  by: z.enum(['page', 'line', 'word']),
  /** The payload field holding the text; each part is sent on as `{ [field]: part }`. */
  field: FieldPathSchema.default('text'),
});

/** Built-in map: builds a new payload whose fields are copied from field paths of the input. */
export const MapStepSchema = z.object({
  type: z.literal('map'),
  /** output field → input field path. */
  fields: z.record(z.string().min(1), FieldPathSchema),
});

/** Built-in pass: sends the payload on unchanged. */
export const PassStepSchema = z.object({ type: z.literal('pass') });

/**
 * Built-in email unpacking: reads an RFC 5322 message (MIME parts, base64 or quoted-printable) held as
 * text in `field` and sends one part per attachment, a split, so a combine downstream joins the files
 * of one email. Each part is `{ [id.field]?, message_id, from, from_name, subject, date, file_name, content_type,
 * size (bytes), sha256, text }`; `text` is the decoded content of a textual attachment (`text/*`,
 * JSON, XML) in its declared charset, null for any other. An email without attachments sends one
 * `void`, like a split of nothing. A message with no `From` header, a textual attachment that does not
 * decode, or a configured id that is not found fails the step with `input_rejected`.
 */
export const EmailStepSchema = z.object({
  type: z.literal('email'),
  /** The payload field holding the raw message (a `.eml` file's text). */
  field: FieldPathSchema.default('text'),
  /**
   * Read when `field` is absent: the payload field holding the message's bytes in base64 (the run
   * input of an `.eml` file that is not UTF-8 arrives this way).
   */
  base64Field: FieldPathSchema.default('base64'),
  /**
   * Copies an id of the email onto every part, e.g. a claim number: the `header`'s value when the
   * email has it, else the first match of `pattern` in the subject (its first group when it has one); RE2 syntax, matched in linear time (mesh-pattern.ts).
   */
  id: z
    .object({
      field: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a field name').default('claim_id'),
      header: z.string().regex(/^[A-Za-z0-9-]+$/, 'expected a header name').optional(),
      pattern: z
        .string()
        .min(1)
        .max(500)
        .superRefine((p, ctx) => {
          const re = compileMeshPattern(p);
          if ('error' in re) ctx.addIssue({ code: 'custom', message: re.error });
        })
        .optional(),
    })
    .refine((v) => v.header !== undefined || v.pattern !== undefined, 'give a header, a pattern or both')
    .optional(),
});

/** A host name such as `api.example.com` or `127.0.0.1`, optionally with `:port`; no scheme or path. */
export const HostSchema = z
  .string()
  .regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'expected a host name such as api.example.com or 127.0.0.1:8080');

/** A JavaScript identifier-like name for a connection or a secret, e.g. `claims_db`, `CRM_TOKEN`. */
export const EnvNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'expected a name of letters, digits and "_"');

/**
 * A field Trellis no longer reads because it let a mesh reach the server's own environment, files
 * or network; any value is refused with a message naming the replacement (docs/security.md).
 */
function removedField(replacement: string) {
  return z.custom<undefined>((v) => v === undefined, { message: `is no longer accepted: ${replacement}` }).optional();
}

/**
 * A reference to a secret of the admin-managed secrets store, by name: `{"secret": "CRM_TOKEN"}`.
 * The value never appears in the mesh; it is sent only to the hosts the secret lists.
 */
export const SecretRefSchema = z
  .unknown()
  .superRefine((v, ctx) => {
    if (typeof v === 'string') {
      ctx.addIssue({
        code: 'custom',
        message: `names the environment variable ${v}, which is no longer read: reference a secret of the secrets store instead, {"secret": "${v}"}`,
      });
    }
  })
  .pipe(z.strictObject({ secret: EnvNameSchema }, { error: 'expected {"secret": "NAME"}, a secret of the secrets store' }));

/**
 * JavaScript run in a sandbox: a separate process holding a V8 isolate with no Node APIs, no
 * environment, no network and no files unless granted. `source` is the body of an async function
 * of `payload`; what it returns (JSON values only) becomes the payload, `undefined` keeps it.
 */
export const CodeStepSchema = z.object({
  type: z.literal('code'),
  source: z.string().min(1, 'expected JavaScript source').max(200_000),
  /** Wall-clock limit for one message, in ms (default 5 000, at most 600 000); past it: `timed_out`. */
  timeoutMs: z.number().int().min(10).max(600_000).default(5_000),
  /** Heap limit of the isolate, in MB (default 64, 8 to 1 024). */
  memoryMb: z.number().int().min(8).max(1024).default(64),
  /**
   * Hosts the code may reach with `fetch` (exact host, or host:port); none when absent. The
   * install's egress policy applies on top (docs/security.md).
   */
  network: z.array(HostSchema).optional(),
  /**
   * True gives the code `writeFile(name, text)` into a fresh, empty directory the server makes for
   * this one step run and removes afterwards; false or absent: no file access at all.
   */
  scratchDir: z.boolean().optional(),
  writeDir: removedField('the server picks the directory; set "scratchDir": true for a fresh directory of the step\'s own'),
});

/**
 * The reserved SQL connection name for Trellis's own database: the embedded PGlite database, or the
 * Postgres database `DATABASE_URL` names. Its tables sit beside Trellis's own (runs, messages, users),
 * with Trellis's rights, so a mesh's table names must not collide with them.
 */
export const OWN_DATABASE_CONNECTION = 'trellis';

/**
 * The SQL parameter that binds the delivery's idempotency key (its message id, the same on every
 * redelivery) instead of a payload field, so a write can be made idempotent
 * (`insert … on conflict (key) do nothing`).
 */
export const IDEMPOTENCY_KEY_PARAM = '@idempotency_key';

/** A SQL step parameter: a payload field path, or {@link IDEMPOTENCY_KEY_PARAM}. */
export const SqlParamSchema = z.union([FieldPathSchema, z.literal(IDEMPOTENCY_KEY_PARAM)]);

/**
 * A parameterised SQL query against a named connection: `connection` is `trellis` (Trellis's own
 * database, see {@link OWN_DATABASE_CONNECTION}, reached as the restricted role `trellis_mesh` that
 * owns only the schema `mesh_data`) or the name of a connection an admin stored (`trellis connection set`). Runs in a transaction, read-only
 * (`SET TRANSACTION READ ONLY`) unless `write` is true, on either kind of connection.
 */
export const SqlStepSchema = z.object({
  type: z.literal('sql'),
  /** `trellis`, or the name of an admin-managed connection holding a `postgres://…` URL (read when the step runs). */
  connection: EnvNameSchema,
  /**
   * One SQL statement, with `$1`, `$2`, … bound to `params` in order; never built from payload text.
   * A data or schema statement only (sql-statement.ts): SET, BEGIN, COPY, DO and the like are refused.
   */
  query: z
    .string()
    .min(1, 'expected a SQL query')
    .superRefine((q, ctx) => {
      const refused = sqlStatementRefusal(q);
      if (refused) ctx.addIssue({ code: 'custom', message: refused });
    }),
  /** Payload field paths bound to `$1`, `$2`, … in order; `@idempotency_key` binds the delivery's idempotency key. */
  params: z.array(SqlParamSchema).default([]),
  /** True when the query may write (default false: `SET TRANSACTION READ ONLY`). */
  write: z.boolean().default(false),
  /** The payload field the result rows are written to (default `rows`). */
  into: FieldPathSchema.default('rows'),
  /** Longest the query may run, in ms (default 30 000); the embedded database cannot cancel a query, so there it is not enforced. */
  timeoutMs: z.number().int().min(10).max(600_000).default(30_000),
});

/** An HTTP request; the response body is written into a payload field. */
export const HttpStepSchema = z.object({
  type: z.literal('http'),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
  /** `https://host/path/{field}`: each `{field.path}` is replaced by that payload value, URL-encoded. */
  url: z.string().min(1, 'expected a URL template'),
  /** Header name → the secret of the secrets store holding its value, `{"secret": "NAME"}`. */
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, 'expected a header name'), SecretRefSchema).optional(),
  /** Payload field sent as the JSON body; the whole payload when absent (never for GET/DELETE). */
  body: FieldPathSchema.optional(),
  /** Hosts the URL may reach (exact host, or host:port); any other is refused. The install's egress policy applies on top. */
  allowHosts: z.array(HostSchema).min(1, 'list at least one host the step may call'),
  /** Longest the request may take, in ms (default 10 000); past it: `timed_out`. */
  timeoutMs: z.number().int().min(10).max(600_000).default(10_000),
  /** The payload field the response (JSON when it parses, else text) is written to (default `response`). */
  into: FieldPathSchema.default('response'),
});

/** One step of a workflow member. `AgentStepSchema` (an agent call) is declared after the agent member. */
const BaseStepSchemas = [SplitStepSchema, MapStepSchema, PassStepSchema, CodeStepSchema, SqlStepSchema, HttpStepSchema, EmailStepSchema] as const;

const memberBase = {
  id: IdSchema,
  /** The one member that receives the run's input. */
  head: z.boolean().optional(),
  /** A label for people; the id stays the stable name. */
  label: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
  /** The worker pool that runs this member (a BullMQ queue per pool); `default` when absent. */
  pool: IdSchema.optional(),
  /**
   * `required`: the member's output is parked (message status `parked`, no worker waits) until a
   * person approves or rejects it in the Action Center; approval publishes it on, rejection fails
   * the run with cause `input_rejected`. Absent: the output is published at once.
   */
  approval: z.enum(['required']).optional(),
};

/**
 * Spend limits of one agent: tokens (prompt + completion) and US dollars (models with a known
 * price only), per run and per UTC day (all runs of the mesh). Omitted limits do not apply.
 */
export const AgentBudgetSchema = z
  .object({
    tokensPerRun: z.number().int().positive().optional(),
    usdPerRun: z.number().positive().optional(),
    tokensPerDay: z.number().int().positive().optional(),
    usdPerDay: z.number().positive().optional(),
  })
  .strict();

/** Spend limits of one agent. */
export type AgentBudgetLimits = z.infer<typeof AgentBudgetSchema>;

/** What an agent is, whether a member or a workflow step. */
const agentFields = {
  /** Model name at the provider, e.g. `gpt-4o-mini`, or `demo` for the built-in deterministic demo. */
  model: z.string().min(1),
  instructions: z.string().default(''),
  /**
   * OpenAI-compatible endpoint (under the install's egress policy); the API key is the named secret
   * of the secrets store, sent only when `baseUrl`'s host is on that secret's host list.
   */
  provider: z
    .object({
      baseUrl: z.string().url(),
      apiKeySecret: EnvNameSchema.optional(),
      apiKeyEnv: removedField('environment variables are not readable from a mesh; store the key with `trellis secret set NAME --hosts <host>` and set provider.apiKeySecret'),
      /** Model calls per minute the provider allows this model (its rate limit); a run waits at admission while the last minute's calls reach it. */
      requestsPerMinute: z.number().int().positive().optional(),
      /** Tokens (prompt + completion) per minute the provider allows this model; a run waits at admission while the last minute's tokens reach it. */
      tokensPerMinute: z.number().int().positive().optional(),
    })
    .optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** JSON Schema of the agent's answer. */
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  /** Names of MCP tool servers granted to this agent (registered by an admin); its only tools. */
  tools: z.array(z.string().min(1)).optional(),
  /** What this agent may spend, from recorded usage; over it the run fails with `budget_spent`. */
  budget: AgentBudgetSchema.optional(),
};

/** An LLM with instructions, its own model, tools and an output schema. */
export const AgentMemberSchema = z.object({
  ...memberBase,
  kind: z.literal('agent'),
  ...agentFields,
});

/**
 * An agent call as a workflow step, with the same fields as an agent member. `output: 'replace'`
 * (default) makes the answer the payload; `merge` spreads an object answer over the payload.
 */
export const AgentStepSchema = z.object({
  type: z.literal('agent'),
  ...agentFields,
  output: z.enum(['replace', 'merge']).default('replace'),
});

/** One step of a workflow member. */
export const StepSchema = z.discriminatedUnion('type', [...BaseStepSchemas, AgentStepSchema]);

/** Step types that may take long or are asynchronous (a process, a database, the network, a model, the email parser): their workflow runs on a worker pool. */
export const HEAVY_STEP_TYPES = ['code', 'sql', 'http', 'agent', 'email'] as const;

/** A fixed sequence of steps run as one member. */
export const WorkflowMemberSchema = z.object({
  ...memberBase,
  kind: z.literal('workflow'),
  steps: z.array(StepSchema).min(1, 'a workflow needs at least one step'),
});

/** Another mesh run as a child run; the parent's message waits for it. */
export const NestedMeshMemberSchema = z.object({
  ...memberBase,
  kind: z.literal('mesh'),
  /** Name of the nested mesh. */
  mesh: IdSchema,
  /**
   * `replace` (default): the child run's output becomes the payload; `merge`: an object output is
   * spread over the parent's payload, so fields the child does not carry (ids, file names) stay.
   */
  output: z.enum(['replace', 'merge']).optional(),
});

/** An outside service: the step parks until the service claims and completes it. */
export const ServiceMemberSchema = z.object({
  ...memberBase,
  kind: z.literal('service'),
  service: IdSchema,
  /** Seconds a job may wait for the service to claim it before failing with `no_worker`. */
  claimTimeoutSeconds: z.number().int().positive().optional(),
});

/** How a combine merges its parts, which arrive in `seq` order. */
export const MergeSchema = z.discriminatedUnion('type', [
  /** Concatenates a text field of every part: `{ [field]: parts.join('') }`. */
  z.object({ type: z.literal('concat'), field: FieldPathSchema.default('text') }),
  /** Collects every part's payload into an array: `{ [into]: payloads }`. */
  z.object({ type: z.literal('collect'), into: z.string().min(1).default('parts') }),
]);

/** A keyed join: gathers the parts of one split and fires once per key when the set is complete. */
export const CombineMemberSchema = z.object({
  ...memberBase,
  kind: z.literal('combine'),
  /** Optional payload field naming the group for people (e.g. `claim_id`); parts are counted per split. */
  key: FieldPathSchema.optional(),
  merge: MergeSchema.default({ type: 'collect', into: 'parts' }),
});

/** Any member, discriminated on `kind`. */
export const MemberSchema = z.discriminatedUnion('kind', [
  AgentMemberSchema,
  WorkflowMemberSchema,
  NestedMeshMemberSchema,
  ServiceMemberSchema,
  CombineMemberSchema,
]);

/** The five member kinds, in palette order. */
export const MEMBER_KINDS = ['agent', 'workflow', 'mesh', 'service', 'combine'] as const;

/** `from → to`, with an optional condition (see `condition.ts`). */
export const ChannelSchema = z.object({
  /** Stable id; when absent the channel is named `from->to`. */
  id: z.string().min(1).max(130).optional(),
  from: IdSchema,
  to: IdSchema,
  when: z.string().max(2000).optional(),
});

/** Canvas positions keyed by member id; never part of the logic. */
export const LayoutSchema = z.record(z.string(), z.object({ x: z.number(), y: z.number() }));

/** The whole mesh file. */
/**
 * Limits of a mesh's runs. `capacityWaitSeconds`: how long a run admitted to wait (no worker, no
 * free slot, a model rate limit, the database pool) may wait before its first message starts;
 * past it the run fails with `capacity_wait_exceeded` (default TRELLIS_CAPACITY_WAIT_SECONDS, 3600).
 */
export const MeshLimitsSchema = z
  .object({
    capacityWaitSeconds: z.number().int().positive().max(7 * 24 * 3600).optional(),
    /**
     * How many runs of this mesh may be open (running or stalled) at once; more are held queued.
     * It can only lower the admin's TRELLIS_MAX_RUNS_PER_MESH: a value above that cap is clamped
     * to it at admission, and a held run's sentence says so (engine runs/run-limits.ts).
     */
    maxConcurrentRuns: z.number().int().positive().max(100_000).optional(),
  })
  .strict();

export const MeshSchema = z.object({
  format: z.literal(MESH_FORMAT),
  name: IdSchema,
  description: z.string().max(4000).optional(),
  members: z.array(MemberSchema),
  channels: z.array(ChannelSchema),
  layout: LayoutSchema.optional(),
  limits: MeshLimitsSchema.optional(),
});

export type Step = z.infer<typeof StepSchema>;
export type SplitStep = z.infer<typeof SplitStepSchema>;
export type EmailStep = z.infer<typeof EmailStepSchema>;
export type CodeStep = z.infer<typeof CodeStepSchema>;
export type SqlStep = z.infer<typeof SqlStepSchema>;
export type HttpStep = z.infer<typeof HttpStepSchema>;
export type AgentStep = z.infer<typeof AgentStepSchema>;
export type Member = z.infer<typeof MemberSchema>;
export type MemberKind = Member['kind'];
export type AgentMember = z.infer<typeof AgentMemberSchema>;
export type WorkflowMember = z.infer<typeof WorkflowMemberSchema>;
export type NestedMeshMember = z.infer<typeof NestedMeshMemberSchema>;
export type ServiceMember = z.infer<typeof ServiceMemberSchema>;
export type CombineMember = z.infer<typeof CombineMemberSchema>;
export type Merge = z.infer<typeof MergeSchema>;
export type Channel = z.infer<typeof ChannelSchema>;
export type Layout = z.infer<typeof LayoutSchema>;
export type MeshLimits = z.infer<typeof MeshLimitsSchema>;
export type Mesh = z.infer<typeof MeshSchema>;
/** The mesh file as written by a person, before defaults are applied. */
export type MeshInput = z.input<typeof MeshSchema>;

/** The name findings and the engine use for a channel: its `id`, else `from->to`. */
export function channelName(channel: Channel): string {
  return channel.id ?? `${channel.from}->${channel.to}`;
}
