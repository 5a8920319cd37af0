/**
 * The records-check outside service: claims the police reports parked at the claims mesh's
 * "Records check" member and answers each from the bundled register. Stops cleanly on SIGINT or
 * SIGTERM (the job in hand is finished and reported first).
 *
 *   TRELLIS_SERVICE_KEY=trs_… npm run example:records-check
 */
import { readFileSync } from 'node:fs';
import { createServiceClient } from '@trellis/sdk';
import { checkRecords, type ReportRecord } from './check';
import { recordsCheckEnv } from './env';

const register = JSON.parse(readFileSync(new URL('./reports.json', import.meta.url), 'utf8')) as Record<string, ReportRecord>;

let env;
try {
  env = recordsCheckEnv();
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}

const client = createServiceClient({ ...env, worker: `records-check@${process.pid}` });
const serving = client.serve(
  (job) => {
    const answer = checkRecords(job.payload, register);
    const records = answer.records as { found: boolean };
    process.stdout.write(`job ${job.jobId.slice(0, 12)} (run ${job.runId}): report ${String(answer.report_number)} ${records.found ? 'found' : 'not found'}\n`);
    return answer;
  },
  { onError: (err) => process.stderr.write(`records-check: ${err instanceof Error ? err.message : String(err)}; retrying\n`) },
);
process.stdout.write(`records-check serving ${env.service} at ${env.baseUrl}\n`);

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    process.stdout.write('records-check stopping\n');
    void serving.stop().then(() => process.exit(0));
  });
}
serving.done.catch((err: unknown) => {
  process.stderr.write(`records-check stopped: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
