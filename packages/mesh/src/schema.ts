/**
 * The mesh file, `trellis.mesh/v1` (DESIGN.md §7): zod schemas and the types inferred from them.
 * Members are a discriminated union on `kind`; kind-specific fields are Trellis's own design.
 * Canvas positions live in `layout`, beside the logic and never inside a member.
 */
import { z } from 'zod';

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

/** One step of a workflow member. */
export const StepSchema = z.discriminatedUnion('type', [SplitStepSchema, MapStepSchema, PassStepSchema]);

const memberBase = {
  id: IdSchema,
  /** The one member that receives the run's input. */
  head: z.boolean().optional(),
  /** A label for people; the id stays the stable name. */
  label: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
  /** The worker pool that runs this member (a BullMQ queue per pool); `default` when absent. */
  pool: IdSchema.optional(),
};

/** An LLM with instructions, its own model, tools and an output schema. */
export const AgentMemberSchema = z.object({
  ...memberBase,
  kind: z.literal('agent'),
  /** Model name at the provider, e.g. `gpt-4o-mini`, or `demo` for the built-in deterministic demo. */
  model: z.string().min(1),
  instructions: z.string().default(''),
  /** OpenAI-compatible endpoint; the key is read from the named environment variable, never stored. */
  provider: z
    .object({ baseUrl: z.string().url(), apiKeyEnv: z.string().min(1).optional() })
    .optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** JSON Schema of the agent's answer. */
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  /** Names of MCP tool servers granted to this agent. */
  tools: z.array(z.string().min(1)).optional(),
});

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
export const MeshSchema = z.object({
  format: z.literal(MESH_FORMAT),
  name: IdSchema,
  description: z.string().max(4000).optional(),
  members: z.array(MemberSchema),
  channels: z.array(ChannelSchema),
  layout: LayoutSchema.optional(),
});

export type Step = z.infer<typeof StepSchema>;
export type SplitStep = z.infer<typeof SplitStepSchema>;
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
export type Mesh = z.infer<typeof MeshSchema>;
/** The mesh file as written by a person, before defaults are applied. */
export type MeshInput = z.input<typeof MeshSchema>;

/** The name findings and the engine use for a channel: its `id`, else `from->to`. */
export function channelName(channel: Channel): string {
  return channel.id ?? `${channel.from}->${channel.to}`;
}
