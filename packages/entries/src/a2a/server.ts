/**
 * A2A (the official `@a2a-js/sdk`): each published mesh is an agent at `/a2a/<mesh>`, its card at
 * `/a2a/<mesh>/.well-known/agent-card.json`, JSON-RPC at `POST /a2a/<mesh>`. Both wire versions are
 * served: 1.0 (`SendMessage`, `GetTask`, `CancelTask`) and 0.3 (`message/send`, `tasks/get`,
 * `tasks/cancel`, chosen by the SDK from the `A2A-Version` header), mapped to runs by
 * {@link RunsRequestHandler}.
 *
 * Auth: `Authorization: Bearer trl_…` (the card is public; `message/send` needs `run`, the task
 * methods `read`, cancelling `operate`). A message's `messageId` is its idempotency key, so a
 * retried send returns the same task. Refusals are JSON-RPC errors whose ErrorInfo metadata
 * carries the engine's `code` (and the `runId` of a recorded rejection).
 */
import { AgentCard, A2A_VERSION_HEADER, type CancelTaskRequest, type GetTaskRequest, type Message, type SendMessageRequest, type Task } from '@a2a-js/sdk';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { A2A_LEGACY_PROTOCOL_VERSION } from '@a2a-js/sdk/compat/v0_3';
import { RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { Engine } from '@trellis/engine/engine';
import { EngineError, MeshNotFoundError, RunNotFoundError } from '@trellis/engine/errors';
import { listPublished, type PublishedMesh } from '@trellis/engine/meshes/list-published';
import { cancelRun, RunEndedAlreadyError } from '@trellis/engine/runs/cancel-run';
import { getRun } from '@trellis/engine/runs/get-run';
import { bearerOf, tokenUser } from '../auth';
import { entryAnswer, entryError, startBridgeRun } from '../entry-run';
import { agentCardOf, inputOfMessage, taskOf } from './tasks';

/** Where the agent is and how long message/send waits for the run (ms). */
export interface A2aOptions {
  meshName: string;
  /** The path after `/a2a/<mesh>`: `/` or `/.well-known/agent-card.json`. */
  rest: string;
  waitMs: number;
  /** The agent's URL, e.g. `https://trellis.example.com/a2a/claims-intake`. */
  baseUrl: string;
}

/** An engine error as an A2A error: its code (and recorded run) in the ErrorInfo metadata. */
function a2aError(err: unknown): Error {
  if (!(err instanceof EngineError)) return err instanceof Error ? err : new Error(String(err));
  const { body } = entryError(err);
  const runId = (err as { runId?: string }).runId;
  const metadata = { code: body.error.code, ...(runId ? { runId } : {}) };
  if (err instanceof RunNotFoundError) return new TaskNotFoundError({ message: body.error.message, metadata });
  if (err instanceof RunEndedAlreadyError) return new TaskNotCancelableError({ message: body.error.message, metadata });
  return new RequestMalformedError({ message: body.error.message, metadata });
}

async function rethrown<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw a2aError(err);
  }
}

/** The A2A request handler of one published mesh for one caller's token. */
export class RunsRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly engine: Engine,
    private readonly mesh: PublishedMesh,
    private readonly token: string | undefined,
    private readonly options: A2aOptions,
  ) {}

  getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(agentCardOf(this.mesh, this.options.baseUrl, String(this.mesh.latestVersion)));
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new UnsupportedOperationError('this agent has no extended card'));
  }

  sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    return rethrown(async () => {
      const actor = await tokenUser(this.engine.db, this.token, 'run', `the agent ${this.mesh.name}`);
      const message = params.message;
      const input = inputOfMessage(message);
      const started = await startBridgeRun(this.engine, {
        meshName: this.mesh.name,
        input,
        ...(message?.messageId ? { idempotencyKey: `a2a:${actor.id}:${message.messageId}` } : {}),
        entry: 'a2a',
        actor,
      });
      const waitMs = params.configuration?.returnImmediately ? 0 : this.options.waitMs;
      return taskOf(await entryAnswer(this.engine, started.runId, waitMs), message?.contextId || started.runId);
    });
  }

  // eslint-disable-next-line require-yield -- the interface is a generator; this agent does not stream
  async *sendMessageStream(): AsyncGenerator<never, void, undefined> {
    await Promise.reject(new UnsupportedOperationError('streaming is not offered; use message/send and tasks/get'));
  }

  getTask(params: GetTaskRequest): Promise<Task> {
    return rethrown(async () => {
      await tokenUser(this.engine.db, this.token, 'read', `the agent ${this.mesh.name}'s tasks`);
      await this.ownRun(params.id);
      return taskOf(await entryAnswer(this.engine, params.id, 0), params.id);
    });
  }

  cancelTask(params: CancelTaskRequest): Promise<Task> {
    return rethrown(async () => {
      const user = await tokenUser(this.engine.db, this.token, 'operate', `cancelling the agent ${this.mesh.name}'s tasks`);
      await this.ownRun(params.id);
      await cancelRun(this.engine, { runId: params.id, userId: user.id, reason: 'cancelled over A2A' });
      return taskOf(await entryAnswer(this.engine, params.id, 0), params.id);
    });
  }

  /** A task of this agent is a run of its mesh; any other id is not found here. */
  private async ownRun(runId: string): Promise<void> {
    const run = await getRun(this.engine.db, runId);
    if (run?.meshId !== this.mesh.id) throw new RunNotFoundError(runId);
  }

  createTaskPushNotificationConfig(): Promise<never> {
    return Promise.reject(new UnsupportedOperationError('push notifications are not offered'));
  }
  getTaskPushNotificationConfig(): Promise<never> {
    return Promise.reject(new UnsupportedOperationError('push notifications are not offered'));
  }
  listTaskPushNotificationConfigs(): Promise<never> {
    return Promise.reject(new UnsupportedOperationError('push notifications are not offered'));
  }
  deleteTaskPushNotificationConfig(): Promise<never> {
    return Promise.reject(new UnsupportedOperationError('push notifications are not offered'));
  }
  // eslint-disable-next-line require-yield -- as sendMessageStream
  async *resubscribe(): AsyncGenerator<never, void, undefined> {
    await Promise.reject(new UnsupportedOperationError('streaming is not offered; use tasks/get'));
  }
  listTasks(): Promise<never> {
    return Promise.reject(new UnsupportedOperationError('listing tasks is not offered; use the REST API GET /api/v1/runs'));
  }
}

function jsonRpcError(id: unknown, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null, error: { code, message } });
}

/**
 * Answers one request to a mesh's agent: the card, or a JSON-RPC call.
 * @returns 404 `{ error }` for a mesh that is not published; JSON-RPC envelopes otherwise.
 */
export async function handleA2a(engine: Engine, req: Request, options: A2aOptions): Promise<Response> {
  const [mesh] = await listPublished(engine.db, options.meshName);
  if (!mesh) {
    const { status, body } = entryError(new MeshNotFoundError(`${options.meshName} (no published mesh has this name)`));
    return Response.json(body, { status });
  }
  const handler = new RunsRequestHandler(engine, mesh, bearerOf(req), options);
  if (options.rest === '/.well-known/agent-card.json' && req.method === 'GET') {
    return Response.json(AgentCard.toJSON(await handler.getAgentCard()), { headers: { 'cache-control': 'no-cache' } });
  }
  if (options.rest !== '/' || req.method !== 'POST') {
    return Response.json({ error: { code: 'not_found', message: `the agent answers GET .well-known/agent-card.json and POST JSON-RPC at ${options.baseUrl}` } }, { status: 404 });
  }
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return jsonRpcError(null, -32700, 'the request body is not JSON');
  }
  const requested = req.headers.get(A2A_VERSION_HEADER) ?? A2A_LEGACY_PROTOCOL_VERSION;
  const legacy = requested === A2A_LEGACY_PROTOCOL_VERSION;
  const context = new ServerCallContext({ requestedVersion: requested });
  try {
    validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
  } catch (err) {
    const mapped = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) : JsonRpcTransportHandler.mapToJSONRPCError(err);
    return Response.json({ jsonrpc: '2.0', id: (body as { id?: unknown } | null)?.id ?? null, error: mapped });
  }
  const transport = legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
  const answer = await transport.handle(body as Record<string, unknown>, context);
  if (typeof (answer as AsyncGenerator<unknown>)[Symbol.asyncIterator] === 'function') {
    return jsonRpcError((body as { id?: unknown }).id, -32004, 'streaming is not offered; use message/send');
  }
  return Response.json(answer);
}
