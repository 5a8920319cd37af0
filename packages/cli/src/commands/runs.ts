/** `trellis runs [--status <s>] [--limit <n>] [--json]`: the newest runs. */
import { listRuns } from '@trellis/engine/runs/list-runs';
import { open, settings } from '../boot';
import { CliError, EXIT } from '../fail';
import { summaryJson } from '../summary';

const STATUSES = ['queued', 'running', 'done', 'failed', 'stalled', 'cancelled'];

/** Lists runs, newest first. */
export async function runsCommand(opts: { status?: string; limit?: string; json?: boolean }): Promise<number> {
  const limit = opts.limit === undefined ? 20 : Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new CliError(`--limit must be a positive whole number, not ${opts.limit}`);
  if (opts.status !== undefined && !STATUSES.includes(opts.status)) {
    throw new CliError(`--status must be one of ${STATUSES.join(', ')}, not ${opts.status}`);
  }
  const booted = await open(settings());
  try {
    const { items, total } = await listRuns(booted.engine.db, { ...(opts.status ? { status: opts.status } : {}), limit });
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ total, runs: items.map((r) => ({ ...summaryJson(r), mesh: r.meshName, createdAt: r.createdAt })) })}\n`);
      return EXIT.ok;
    }
    for (const r of items) {
      const c = r.counts;
      process.stdout.write(
        `${r.id}  ${r.createdAt.toISOString()}  ${r.meshName} v${r.meshVersion}  ${r.status}${r.cause ? ` (${r.cause})` : ''}  ` +
          `${c.done}/${c.published} done  ${r.seconds}s\n`,
      );
    }
    process.stdout.write(`${items.length} of ${total} runs\n`);
    return EXIT.ok;
  } finally {
    await booted.close();
  }
}
