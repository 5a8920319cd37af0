/**
 * The table and the targets of `npm run bench:fanout`: each scenario's time per word against its
 * baseline measured in the same run, and PASS/MISS for each target of the throughput issue.
 */
import type { Result } from './figures';

/** The baseline each scenario is compared with (by name prefix), and what the ratio is against. */
function baselineOf(name: string, peerWords: number, heavyWords: number): string | undefined {
  if (name.startsWith('trellis-docs')) return 'bullmq-docs300x120';
  if (name.startsWith('trellis-heavy')) return `bullmq-heavy-${heavyWords}`;
  if (name.startsWith('trellis-code')) return `trellis-heavy-${heavyWords}`;
  if (name.startsWith('bullmq')) return undefined;
  if (/^(pgboss|graphile|dbos)/.test(name)) return peerWords === 20_000 ? 'bullmq-20000' : undefined;
  if (name === 'trellis-2000') return undefined;
  return 'bullmq-20000';
}

/** Seconds per word of `a` over seconds per word of `b` (a time ratio when both carry the same words). */
function ratio(a: Result, b: Result): number {
  return a.seconds / a.words / (b.seconds / b.words);
}

/** The report: machine line, table, then one line per target (`not run` when its scenarios were left out). */
export function printReport(machine: string, results: Map<string, Result>, sizes: { codeWords: number; peerWords: number; heavyWords: number }): string {
  const all = [...results.values()];
  const row = (r: Result) => {
    if (r.failed) return `| ${r.scenario} | NO | failed: ${r.failed} | | | | | | | | ${r.worstPingMs ?? '?'} | ${r.load?.toFixed(1) ?? '?'} |`;
    const base = baselineOf(r.scenario, sizes.peerWords, sizes.heavyWords);
    const against = base ? results.get(base) : undefined;
    const vs = against ? `${ratio(r, against).toFixed(2)}× ${base}` : '—';
    return `| ${r.scenario} | ${r.exact ? 'yes' : 'NO'} | ${r.seconds.toFixed(2)} | ${r.messages} | ${Math.round(r.messages / r.seconds)} | ${vs} | ${r.peakRssMb} | ${r.cpuSeconds.toFixed(1)} | ${r.pgCpuSeconds?.toFixed(1) ?? '?'} | ${r.redisCpuSeconds?.toFixed(1) ?? '?'} | ${r.worstPingMs ?? '?'} | ${r.load?.toFixed(1) ?? '?'} |`;
  };
  const target = (label: string, names: [string, string], limit: number) => {
    const [a, b] = names.map((n) => results.get(n));
    if (!a || !b) return `${label} ≤ ${limit}: not run`;
    if (a.failed || b.failed) return `${label} ≤ ${limit}: MISS (a scenario failed)`;
    const value = a.scenario.startsWith('trellis-') && b.scenario === 'trellis-2000' ? a.seconds / b.seconds : ratio(a, b);
    return `${label} ≤ ${limit}: ${value.toFixed(2)} ${value <= limit ? 'PASS' : 'MISS'}`;
  };
  const peak = Math.max(0, ...all.map((r) => r.peakRssMb));
  // The PING target is Trellis's: a BullMQ flow's one MULTI of all its children blocks Redis by design of the baseline.
  const ping = Math.max(0, ...all.filter((r) => /^(trellis|workers)/.test(r.scenario)).map((r) => r.worstPingMs ?? 0));
  const failed = all.filter((r) => r.failed).map((r) => r.scenario);
  const huge = results.get('trellis-200000');
  return (
    [
      machine,
      '| scenario | exact | seconds | messages | messages/s | ratio (per word) vs baseline | peak RSS MB | Node CPU s | Postgres CPU s | Redis CPU s | worst Redis PING ms | load (1 min) |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...all.map(row),
      '',
      'Postgres and Redis CPU are machine-wide (other work on a shared machine counts too).',
      'targets:',
      target('20,000-way word-split, Trellis / BullMQ', ['trellis-20000', 'bullmq-20000'], 1.0),
      target('many documents (300 × 120 words), Trellis / BullMQ flows', ['trellis-docs300x120', 'bullmq-docs300x120'], 1.0),
      target('heavy branch, Trellis / BullMQ', [`trellis-heavy-${sizes.heavyWords}`, `bullmq-heavy-${sizes.heavyWords}`], 1.5),
      target(`code step (${sizes.codeWords} words) / heavy branch, per word`, [`trellis-code-${sizes.codeWords}`, `trellis-heavy-${sizes.heavyWords}`], 3.0),
      target('Trellis 20k / 2k time', ['trellis-20000', 'trellis-2000'], 10.5),
      huge ? `200,000 words exact: ${huge.exact ? 'PASS' : 'MISS'}` : '200,000 words exact: not run (--huge)',
      `every process < 1024 MB: ${peak} MB ${peak < 1024 ? 'PASS' : 'MISS'}`,
      `worst Redis PING while Trellis runs < 100 ms: ${ping} ms ${ping < 100 ? 'PASS' : 'MISS'}`,
      `every finished output exact: ${all.every((r) => r.exact || r.failed) ? 'PASS' : 'MISS'}${failed.length > 0 ? ` (failed, no figures: ${failed.join(', ')})` : ''}`,
    ].join('\n') + '\n'
  );
}
