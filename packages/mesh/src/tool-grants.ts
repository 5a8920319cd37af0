/**
 * Tool grants against the install's tool registry: an agent (a member or a workflow's agent step)
 * may list only tool servers an admin registered. Pure: the caller says which names exist.
 */
import type { Finding } from './findings';
import type { Mesh } from './schema';

/** True when a tool server of that registry name is registered. */
export type KnownTool = (name: string) => boolean;

/**
 * A `tool_missing` error for every entry of `tools` (of an agent member, field `tools[i]`, or of a
 * workflow's agent step, field `steps[j].tools[i]`) that `known` does not know.
 */
export function toolFindings(mesh: Mesh, known: KnownTool): Finding[] {
  const findings: Finding[] = [];
  const check = (member: string, tools: readonly string[] | undefined, at: string) => {
    (tools ?? []).forEach((tool, i) => {
      if (known(tool)) return;
      findings.push({
        code: 'tool_missing',
        severity: 'error',
        member,
        field: `${at}tools[${i}]`,
        message: `"${member}" lists the tool server "${tool}" (${at}tools[${i}]), which is not registered; an admin registers tool servers on the Tools page, or remove it.`,
      });
    });
  };
  for (const member of mesh.members) {
    if (member.kind === 'agent') check(member.id, member.tools, '');
    if (member.kind === 'workflow') member.steps.forEach((step, j) => step.type === 'agent' && check(member.id, step.tools, `steps[${j}].`));
  }
  return findings;
}

/** Every tool server name `mesh` lists (members and workflow agent steps), once each. */
export function toolNames(mesh: Mesh): string[] {
  const names = new Set<string>();
  for (const member of mesh.members) {
    if (member.kind === 'agent') for (const t of member.tools ?? []) names.add(t);
    if (member.kind === 'workflow') for (const step of member.steps) if (step.type === 'agent') for (const t of step.tools ?? []) names.add(t);
  }
  return [...names];
}
