/** Use cases: the tool calls of a run, on its trail (granted calls and refused ones alike). */
import { asc, eq } from 'drizzle-orm';
import type { Db } from '@trellis/db/client';
import { toolCalls } from '@trellis/db/schema/tools';
import type { ToolCallEvent } from '../members/agent/mcp-tools';
import { uuidv7 } from '../kernel/ids';

/** Where a tool call happened. */
export interface ToolCallPlace {
  runId: string;
  messageId?: string;
  member: string;
}

/** One recorded tool call. */
export interface ToolCallView extends ToolCallEvent {
  id: string;
  runId: string;
  messageId: string | null;
  member: string;
  at: Date;
}

/** Records one tool call of an agent. */
export async function recordToolCall(db: Db, place: ToolCallPlace, event: ToolCallEvent): Promise<void> {
  await db.insert(toolCalls).values({ id: uuidv7(), runId: place.runId, messageId: place.messageId ?? null, member: place.member, ...event });
}

/** The tool calls of a run, oldest first. */
export async function listToolCalls(db: Db, runId: string): Promise<ToolCallView[]> {
  const rows = await db.select().from(toolCalls).where(eq(toolCalls.runId, runId)).orderBy(asc(toolCalls.at), asc(toolCalls.id));
  return rows.map((r) => ({
    id: r.id,
    runId: r.runId,
    messageId: r.messageId,
    member: r.member,
    tool: r.tool,
    server: r.server,
    outcome: r.outcome as ToolCallEvent['outcome'],
    detail: r.detail,
    at: r.at,
  }));
}
