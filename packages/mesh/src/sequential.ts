/**
 * The `sequential_branches` warning: two members wired one after the other that could run side by side.
 */
import type { Finding } from './findings';
import type { AgentMember, Channel, Member } from './schema';
import { channelName } from './schema';

/**
 * Finds channels `X → Y` where Y most likely needs what X received, not what X produced, so both
 * could receive it side by side instead of Y waiting for X. Trellis only knows what a member produces
 * when it says so, so the rule is deliberately narrow and reports a channel when all of these hold:
 *
 * 1. X and Y are both agents;
 * 2. the channel has no `when` (X is not deciding whether Y runs);
 * 3. it is Y's only incoming channel, so Y receives nothing but X's answer;
 * 4. X declares an `outputSchema` with `properties`, so that answer carries exactly those fields;
 * 5. Y has instructions, and they mention none of those fields and neither X's id nor its label
 *    (whole words, case-insensitive, with `_`, `-` and punctuation read as spaces);
 * 6. X itself has an incoming channel, so there is a sender both could be wired from.
 *
 * A chain whose second agent talks about the first one's fields (or that has no declared output, such
 * as free text passed along a pipeline) is not reported.
 */
export function sequentialBranches(
  members: ReadonlyMap<string, Member>,
  channels: readonly Channel[],
): Finding[] {
  const incoming = new Map<string, Channel[]>();
  for (const channel of channels) {
    if (!members.has(channel.from) || !members.has(channel.to)) continue;
    const list = incoming.get(channel.to) ?? [];
    list.push(channel);
    incoming.set(channel.to, list);
  }
  const findings: Finding[] = [];
  for (const channel of channels) {
    const x = members.get(channel.from);
    const y = members.get(channel.to);
    if (x?.kind !== 'agent' || y?.kind !== 'agent' || x.id === y.id || channel.when !== undefined)
      continue;
    if ((incoming.get(y.id) ?? []).length !== 1) continue;
    const senders = (incoming.get(x.id) ?? []).map((c) => c.from);
    if (senders.length === 0) continue;
    const fields = outputFields(x);
    if (fields.length === 0 || y.instructions.trim() === '') continue;
    const mentions = [...fields, x.id, ...(x.label === undefined ? [] : [x.label])];
    if (mentions.some((name) => mentioned(y.instructions, name))) continue;
    const from = [...new Set(senders)].map((id) => `"${id}"`).join(' and ');
    findings.push({
      code: 'sequential_branches',
      severity: 'warning',
      member: y.id,
      channel: channelName(channel),
      message:
        `"${y.id}" waits for "${x.id}", but its instructions use none of "${x.id}"'s answer (${fields.join(', ')}); ` +
        `if it works on what "${x.id}" received, wire both from ${from} so they run side by side.`,
    });
  }
  return findings;
}

function outputFields(agent: AgentMember): string[] {
  const properties = agent.outputSchema?.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  return Object.keys(properties);
}

function mentioned(text: string, name: string): boolean {
  const needle = normalise(name);
  return needle !== '' && ` ${normalise(text)} `.includes(` ${needle} `);
}

// Lower case, with every run of other characters (including `_` and `-`) as one space,
// so `claim_kind`, `claim-kind` and "Claim kind," all read as `claim kind`.
function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
