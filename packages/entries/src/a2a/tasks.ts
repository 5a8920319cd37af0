/**
 * Runs as A2A tasks (A2A 1.0 data model, `@a2a-js/sdk` types): task id = run id; the run's status is
 * the task state; a done run's output is the task's one artifact (a data part for an object, a
 * text part for text); a failed run's cause sentence is the status message. Message parts become
 * the run input: text parts (joined) as text, one data part (an object) as the payload, one raw
 * part as bytes with its file name.
 */
import { Role, TaskState, type AgentCard, type Message, type Part, type Task } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { BadInputError } from '@trellis/engine/errors';
import type { PublishedMesh } from '@trellis/engine/meshes/list-published';
import type { EntryAnswer, EntryStart } from '../entry-run';

/** Run status → task state (`stalled` is still the run's: working, as a person may move it on). */
export function taskState(status: string): TaskState {
  switch (status) {
    case 'done':
      return TaskState.TASK_STATE_COMPLETED;
    case 'failed':
      return TaskState.TASK_STATE_FAILED;
    case 'cancelled':
      return TaskState.TASK_STATE_CANCELED;
    case 'queued':
      return TaskState.TASK_STATE_SUBMITTED;
    default:
      return TaskState.TASK_STATE_WORKING;
  }
}

function agentMessage(taskId: string, contextId: string, text: string): Message {
  return { messageId: `${taskId}:status`, contextId, taskId, role: Role.ROLE_AGENT, parts: [textPart(text)], metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** The task view of a run's answer. */
export function taskOf(answer: EntryAnswer, contextId: string): Task {
  const output = answer.output;
  const artifacts =
    answer.status === 'done'
      ? [
          {
            artifactId: `${answer.runId}:output`,
            name: 'output',
            description: "The run's output",
            parts: [typeof output === 'string' ? textPart(output) : { content: { $case: 'data' as const, value: output ?? null }, metadata: undefined, filename: '', mediaType: 'application/json' }],
            metadata: undefined,
            extensions: [],
          },
        ]
      : [];
  const sentence = answer.causeMessage ?? (answer.ended ? undefined : `run ${answer.runId} is ${answer.status}; ask tasks/get for its end`);
  return {
    id: answer.runId,
    contextId,
    status: { state: taskState(answer.status), message: sentence ? agentMessage(answer.runId, contextId, sentence) : undefined, timestamp: new Date().toISOString() },
    artifacts,
    history: [],
    metadata: { trellis: { runId: answer.runId, status: answer.status, ...(answer.cause ? { cause: answer.cause, causeMember: answer.causeMember } : {}) } },
  };
}

/**
 * The run input of a user message.
 * @throws BadInputError naming the part: no usable part, several data or raw parts, a data part
 *   that is not an object, or text mixed with data.
 */
export function inputOfMessage(message: Message | undefined): EntryStart['input'] {
  if (!message) throw new BadInputError('message: expected a message with parts');
  const texts: string[] = [];
  const others: { part: Part; at: number }[] = [];
  message.parts.forEach((part, at) => {
    if (part.content?.$case === 'text') texts.push(part.content.value);
    else if (part.content) others.push({ part, at });
  });
  if (others.length === 0) {
    if (texts.length === 0) throw new BadInputError('message.parts: expected a text, data or raw part');
    return { text: texts.join('\n') };
  }
  const first = others[0];
  if (others.length > 1 || texts.length > 0 || !first) throw new BadInputError('message.parts: give text parts, or one data part, or one raw part, not a mix');
  const { part, at } = first;
  const name = part.filename ? { name: part.filename } : {};
  switch (part.content?.$case) {
    case 'data':
      return { payload: part.content.value as unknown, ...name };
    case 'raw':
      return { bytes: new Uint8Array(part.content.value), ...name };
    default:
      throw new BadInputError(`message.parts.${at}: a part by URL is not fetched; send its bytes as a raw part`);
  }
}

/** The agent card of a published mesh; its one skill is the mesh, its interfaces JSON-RPC 1.0 and 0.3. */
export function agentCardOf(mesh: PublishedMesh, url: string, version: string): AgentCard {
  const head = mesh.head;
  const skillDescription = [mesh.description ?? `Runs the Trellis mesh ${mesh.name}.`, head?.description ? `Input: ${head.description}` : undefined].filter(Boolean).join(' ');
  return {
    name: mesh.name,
    description: mesh.description ?? `The Trellis mesh ${mesh.name}`,
    supportedInterfaces: duplicateInterfacesForLegacy([{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }], ['JSONRPC']),
    provider: { organization: 'Trellis', url },
    version,
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: { bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'A Trellis API token (trl_…)', scheme: 'Bearer', bearerFormat: 'trl' } } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: head?.email ? ['message/rfc822', 'text/plain'] : ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [
      {
        id: mesh.name,
        name: mesh.name,
        description: skillDescription,
        tags: ['trellis', ...mesh.members.map((m) => m.kind).filter((k, i, all) => all.indexOf(k) === i)],
        examples: [],
        inputModes: head?.email ? ['message/rfc822'] : ['text/plain', 'application/json'],
        outputModes: ['application/json'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
