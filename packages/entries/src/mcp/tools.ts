/**
 * Published meshes as MCP tools: one tool per mesh (named like the mesh) whose input schema comes
 * from the mesh's head member, plus `trellis_run_status` for runs that outlast the wait.
 */
import type { PublishedMesh } from '@trellis/engine/meshes/list-published';

/** The status tool's name; a mesh of the same name is not offered as a tool. */
export const STATUS_TOOL = 'trellis_run_status';

/** A tool as MCP's tools/list describes it (JSON Schema 2020-12 object for the input). */
export interface ToolDescription {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties?: boolean };
}

/**
 * The tool of one published mesh. The head receives `{ text }` or a JSON object payload
 * (engine kernel/input.ts), so the schema offers exactly those; a head that parses email asks for
 * the raw RFC 5322 message as text.
 */
export function meshTool(mesh: PublishedMesh): ToolDescription {
  const head = mesh.head;
  const headName = head ? (head.label ?? head.id) : '(no head member)';
  const text = head?.email
    ? 'The raw email message (RFC 5322, headers and body, as an .eml file holds it).'
    : `The document text the head member ${headName} receives.`;
  const parts = [mesh.description ?? `Runs the Trellis mesh ${mesh.name}.`, head?.description ? `Input: ${head.description}` : `Input goes to ${headName}.`];
  parts.push(`Give text or payload, not both. Answers the run's output when it ends in time, else the run id for ${STATUS_TOOL}.`);
  return {
    name: mesh.name,
    title: mesh.name,
    description: parts.join(' '),
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', description: text },
        payload: { type: 'object', description: `A JSON object given to ${headName} as its payload instead of text.` },
        name: { type: 'string', description: 'A file name or label for the run, shown to people.' },
      },
      additionalProperties: false,
    },
  };
}

/** The status tool: the answer of a run, after waiting up to `waitSeconds` for it to end. */
export function statusTool(maxWaitSeconds: number): ToolDescription {
  return {
    name: STATUS_TOOL,
    title: 'Trellis run status',
    description: `The status of a Trellis run started by a mesh tool, with its output once it has ended. Waits up to waitSeconds (at most ${maxWaitSeconds}) for the end.`,
    inputSchema: {
      type: 'object',
      properties: {
        runId: { type: 'string', description: 'The run id a mesh tool answered.' },
        waitSeconds: { type: 'number', minimum: 0, maximum: maxWaitSeconds, description: 'How long to wait for the run to end; 0 answers at once.' },
      },
      required: ['runId'],
      additionalProperties: false,
    },
  };
}
