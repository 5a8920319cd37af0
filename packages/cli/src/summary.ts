/** How a run is printed: a few lines for people, or one JSON object for scripts. */
import type { RunSummary } from '@trellis/engine/runs/get-run';

/** The `--json` object of DESIGN.md §6. */
export function summaryJson(run: RunSummary) {
  const c = run.counts;
  return {
    runId: run.id,
    status: run.status,
    cause: run.cause,
    causeMessage: run.causeMessage,
    counts: { published: c.published, delivered: c.delivered, done: c.done, deadLettered: c.deadLettered, lost: c.lost, filtered: c.filtered },
    seconds: run.seconds,
  };
}

/** Prints the run for a person. */
export function printSummary(run: RunSummary): void {
  const c = run.counts;
  const lines = [
    `run      ${run.id}`,
    `mesh     ${run.meshName} v${run.meshVersion}`,
    `status   ${run.status}${run.cause ? ` (${run.cause})` : ''}`,
    ...(run.causeMessage ? [`why      ${run.causeMessage}`] : []),
    `messages ${c.published} published, ${c.delivered} delivered, ${c.done} done, ${c.deadLettered} dead, ${c.lost} lost${c.filtered > 0 ? ` (${c.filtered} parts filtered out)` : ''}`,
    `seconds  ${run.seconds}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
