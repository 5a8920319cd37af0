/**
 * The validator (DESIGN.md §7, STYLE.md): pure, so the canvas, the save and run mutations and the
 * engine all get the same findings for the same mesh.
 */
import { ConditionError, literalTypeWarnings, parseCondition } from './condition';
import { duplicateFindings } from './duplicates';
import { memberConfigFindings } from './member-config';
import type { Finding } from './findings';
import { cycles, reachableFrom, adjacency, type Edge } from './graph';
import { channelName, type Channel, type Member, type Mesh } from './schema';
import { sequentialBranches } from './sequential';
import { joinsAcross, outputDepths } from './join-paths';
import { toolFindings, type KnownTool } from './tool-grants';

/** Finds a nested mesh by name; `undefined` when there is none. */
export type ResolveMesh = (name: string) => Mesh | undefined;

/**
 * Every finding about a mesh, errors and warnings, in a stable order: duplicate ids, the head,
 * channels (unknown ends, conditions), loops, orphans, nesting, then advice.
 *
 * - `head_missing` / `head_multiple`: exactly one member must be the head (one finding per head when several).
 * - `member_missing`: a channel whose `from` or `to` is not a member (names the channel and the missing id).
 * - `condition_invalid`: a `when` that does not parse (or is blank), with the parse error and position.
 * - `condition_type_mismatch` (warning): a comparison that can never go the way it reads; the sending
 *   agent's `outputSchema`, when it has one, supplies the field types (see `literalTypeWarnings`).
 * - `loop`: a cycle of channels; names one channel on it and its members.
 * - `orphan`: a member the head cannot reach, so it never receives a message (skipped without a head).
 * - `nested_mesh_missing`: a `mesh` member whose mesh `resolveMesh` cannot find (skipped without a resolver).
 * - `nesting_cycle`: a mesh that contains itself, directly or through the meshes it nests.
 * - `tool_missing`: an agent (member or workflow step) listing a tool server that `knownTool` does not
 *   know, naming the member and the field (`tools[0]`, `steps[1].tools[0]`); skipped without `knownTool`.
 * - `member_config_invalid`: settings of one member that cannot work (see `member-config.ts`),
 *   naming the member and the field.
 * - `sequential_branches` (warning): see {@link sequentialBranches} for the exact rule.
 * - `join_may_skip_parts` (warning): a channel with a condition between a split and the combine that
 *   joins its parts: parts the condition filters out are counted at that combine as skipped, and it
 *   fires with the parts that arrived (see `join-paths.ts`).
 */
export function validateMesh(mesh: Mesh, resolveMesh?: ResolveMesh, knownTool?: KnownTool): Finding[] {
  const members = new Map<string, Member>();
  for (const member of mesh.members) if (!members.has(member.id)) members.set(member.id, member);
  const ids = [...members.keys()];
  const explicitIds = new Set(mesh.channels.map((c) => c.id));
  const findings = duplicateFindings(
    mesh.members.map((m) => m.id),
    mesh.channels.map(channelName),
    (name) => explicitIds.has(name),
  );
  const heads = mesh.members.filter((m) => m.head === true);
  findings.push(...headFindings(heads));
  const edges: Edge[] = [];
  for (const channel of mesh.channels) {
    const ends = missingEnds(channel, members);
    findings.push(...ends);
    if (ends.length === 0) edges.push(channel);
    findings.push(...conditionFindings(channel, members.get(channel.from)));
  }
  findings.push(...loopFindings(ids, mesh.channels, members));
  if (heads.length > 0) {
    const reached = reachableFrom(
      heads.map((h) => h.id),
      adjacency(ids, edges),
    );
    const from = heads.length === 1 ? `the head "${heads[0]?.id ?? ''}"` : 'any head';
    for (const id of ids) {
      if (reached.has(id)) continue;
      const message = `${named(members.get(id))} cannot be reached from ${from}, so it never receives a message.`;
      findings.push({ code: 'orphan', severity: 'error', member: id, message });
    }
  }
  findings.push(...nestingFindings(mesh, resolveMesh));
  if (knownTool) findings.push(...toolFindings(mesh, knownTool));
  for (const member of members.values()) findings.push(...memberConfigFindings(member));
  findings.push(...sequentialBranches(members, mesh.channels));
  findings.push(...skippedPartFindings(mesh));
  return findings;
}

function skippedPartFindings(mesh: Mesh): Finding[] {
  const conditioned = mesh.channels.filter((c) => c.when !== undefined && c.when.trim() !== '');
  if (conditioned.length === 0) return [];
  const joins = joinsAcross(mesh);
  const depths = outputDepths(mesh);
  const findings: Finding[] = [];
  for (const channel of conditioned) {
    const name = channelName(channel);
    const combines = joins.get(name) ?? [];
    const split = [...(depths.get(channel.from) ?? [])].some((d) => d > 0);
    if (combines.length === 0 || !split) continue;
    const list = combines.map((id) => `"${id}"`).join(', ');
    findings.push({
      code: 'join_may_skip_parts',
      severity: 'warning',
      channel: name,
      member: combines[0],
      message: `Channel "${name}" has a condition between a split and the combine ${list}: parts it filters out are counted there as skipped, so the combine fires with the parts that arrived.`,
    });
  }
  return findings;
}

function headFindings(heads: readonly Member[]): Finding[] {
  if (heads.length === 0) {
    const message =
      "No member is marked as the head, so the run's input has nowhere to go; mark one member as the head.";
    return [{ code: 'head_missing', severity: 'error', message }];
  }
  if (heads.length === 1) return [];
  const all = heads.map((h) => `"${h.id}"`).join(', ');
  return heads.map((h) => ({
    code: 'head_multiple',
    severity: 'error',
    member: h.id,
    message: `${named(h)} is one of ${heads.length} members marked as the head (${all}); a mesh has exactly one head.`,
  }));
}

function missingEnds(channel: Channel, members: ReadonlyMap<string, Member>): Finding[] {
  const name = channelName(channel);
  const ends = [
    { id: channel.from, side: 'comes from' },
    { id: channel.to, side: 'goes to' },
  ];
  return ends
    .filter((end) => !members.has(end.id))
    .map((end) => ({
      code: 'member_missing',
      severity: 'error',
      member: end.id,
      channel: name,
      message: `Channel "${name}" ${end.side} "${end.id}", which is not a member of this mesh.`,
    }));
}

function conditionFindings(channel: Channel, sender: Member | undefined): Finding[] {
  if (channel.when === undefined) return [];
  const name = channelName(channel);
  if (channel.when.trim() === '') {
    const message = `The condition on channel "${name}" is empty; write a comparison such as status == 'open', or remove it.`;
    return [{ code: 'condition_invalid', severity: 'error', channel: name, message }];
  }
  try {
    const ast = parseCondition(channel.when);
    const schema = sender?.kind === 'agent' ? sender.outputSchema : undefined;
    return literalTypeWarnings(ast, schema).map((warning) => ({
      code: 'condition_type_mismatch',
      severity: 'warning',
      channel: name,
      message: `On channel "${name}", ${warning}`,
    }));
  } catch (error) {
    if (!(error instanceof ConditionError)) throw error;
    const message = `The condition on channel "${name}" cannot be read: ${error.message}.`;
    return [{ code: 'condition_invalid', severity: 'error', channel: name, message }];
  }
}

function loopFindings(
  ids: readonly string[],
  channels: readonly Channel[],
  members: ReadonlyMap<string, Member>,
): Finding[] {
  const valid = channels.filter((c) => members.has(c.from) && members.has(c.to));
  const position = new Map(ids.map((id, i) => [id, i]));
  const first = (component: Set<string>): number =>
    Math.min(...[...component].map((id) => position.get(id) ?? 0));
  // Tarjan finds loops downstream first; listing them in mesh order reads better and stays stable.
  const found = cycles(ids, valid).sort((x, y) => first(x) - first(y));
  return found.map((component) => {
    const closing = valid.find((c) => component.has(c.from) && component.has(c.to));
    const inOrder = ids.filter((id) => component.has(id)).map((id) => `"${id}"`);
    const name = closing === undefined ? '' : channelName(closing);
    return {
      code: 'loop',
      severity: 'error',
      ...(closing === undefined ? {} : { member: closing.from, channel: name }),
      message: `Channel "${name}" is part of a loop through ${inOrder.join(', ')}, so a message could go round forever; a mesh must not loop.`,
    };
  });
}

function nestingFindings(mesh: Mesh, resolveMesh: ResolveMesh | undefined): Finding[] {
  const findings: Finding[] = [];
  const acyclic = new Set<string>();
  const resolve = (name: string): Mesh | undefined =>
    name === mesh.name ? mesh : resolveMesh?.(name);
  for (const member of mesh.members) {
    if (member.kind !== 'mesh') continue;
    const child = resolve(member.mesh);
    if (child === undefined) {
      if (resolveMesh === undefined) continue;
      const message = `${named(member)} runs the mesh "${member.mesh}", which does not exist.`;
      findings.push({ code: 'nested_mesh_missing', severity: 'error', member: member.id, message });
      continue;
    }
    const path = findNestingCycle([mesh.name, member.mesh], child, resolve, acyclic);
    if (path === undefined) continue;
    const message = `${named(member)} runs the mesh "${member.mesh}", and the nesting comes back round (${path.join(' → ')}); a mesh cannot contain itself.`;
    findings.push({ code: 'nesting_cycle', severity: 'error', member: member.id, message });
  }
  return findings;
}

/** The path of mesh names from the root to the first name that repeats, or `undefined` when none does. */
function findNestingCycle(
  path: string[],
  current: Mesh,
  resolve: (name: string) => Mesh | undefined,
  acyclic: Set<string>,
): string[] | undefined {
  const last = path[path.length - 1] ?? '';
  if (path.indexOf(last) < path.length - 1) return path;
  if (acyclic.has(last)) return undefined;
  for (const member of current.members) {
    if (member.kind !== 'mesh') continue;
    const child = resolve(member.mesh);
    if (child === undefined) continue;
    const found = findNestingCycle([...path, member.mesh], child, resolve, acyclic);
    if (found !== undefined) return found;
  }
  acyclic.add(last);
  return undefined;
}

function named(member: Member | undefined): string {
  if (member === undefined) return 'A member';
  return member.label === undefined ? `"${member.id}"` : `"${member.id}" (${member.label})`;
}
