/**
 * Duplicate member ids and channel names, shared by the file reader (which refuses them)
 * and the validator (which reports them on meshes built in memory, e.g. by the canvas).
 */
import type { Finding } from './findings';

/**
 * One `duplicate_id` finding per member id and per channel name used more than once.
 * `undefined` entries (ids that could not be read) are skipped.
 */
export function duplicateFindings(
  memberIds: readonly (string | undefined)[],
  channelNames: readonly (string | undefined)[],
  channelsHaveIds: (name: string) => boolean = () => true,
): Finding[] {
  const findings: Finding[] = [];
  for (const [id, count] of repeated(memberIds)) {
    findings.push({
      code: 'duplicate_id',
      severity: 'error',
      member: id,
      message: `${countWord(count)} members share the id "${id}"; each member needs its own id.`,
    });
  }
  for (const [name, count] of repeated(channelNames)) {
    const fix = channelsHaveIds(name)
      ? 'give each its own id'
      : 'remove the copy, or give each channel its own id';
    findings.push({
      code: 'duplicate_id',
      severity: 'error',
      channel: name,
      message: `${countWord(count)} channels are named "${name}"; ${fix}.`,
    });
  }
  return findings;
}

function repeated(values: readonly (string | undefined)[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const value of values) {
    if (value !== undefined) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return [...counts].filter(([, count]) => count > 1);
}

function countWord(count: number): string {
  const words = ['', 'One', 'Two', 'Three', 'Four', 'Five'];
  return words[count] ?? String(count);
}
