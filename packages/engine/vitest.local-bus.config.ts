/**
 * The bus matrix's second column: the engine's bus-relevant integration tests again on the
 * in-process bus (desktop mode, kernel/local-bus.ts), with TRELLIS_TEST_BUS=local (test/harness.ts
 * `TEST_BUS`). The default run (vitest.config.ts) runs every test on BullMQ; `npm test`
 * (scripts/test.mjs) runs this one after it, as `npm run test:local-bus -w @trellis/engine`.
 *
 * Every integration test file is in exactly one of the three lists below, or loading this config
 * fails naming the file: a new test must say which bus it is about. Single tests about Redis inside
 * a file that runs here skip themselves on this bus (`it.skipIf(TEST_BUS === 'local')`), saying why.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from './vitest.config';

/** Run on both buses: they move messages (claims, retries, joins, stops, parks, crashes). */
export const BOTH_BUSES = [
  'src/runs/word-split.integration.test.ts', // the whole corpus document, exact
  'src/process/claim.integration.test.ts', // claims and completions, light and heavy
  'src/process/filtered.integration.test.ts', // conditions, skipped join parts
  'src/process/dead-letter.integration.test.ts', // retries with backoff, dead letters, deadlines
  'src/process/dead-letter-outcome.integration.test.ts', // what a dead letter does to its run
  'src/runs/failures.integration.test.ts', // retries and dead letters end to end
  'src/runs/blink.integration.test.ts', // the database blinking mid-run
  'src/runs/routing.integration.test.ts', // pools and routing
  'src/runs/stop.integration.test.ts', // cancel, abort on failure, stalls that clear
  'src/ops/ops.integration.test.ts', // approvals parked and continued, Action Center items, events
  'src/services/services.integration.test.ts', // outside services' parked jobs and long-poll wake-ups
  'src/runtime/local-bus.integration.test.ts', // the in-process bus's own rules, the inline lane and urgent-first claims there
  'src/runtime/desktop-crash.integration.test.ts', // kill -9 of the one desktop process mid-run
  'src/runtime/drain-in-process.integration.test.ts', // a worker closing past its drain deadline hands its step back
  'src/runtime/health.integration.test.ts', // queue depth reads BullMQ's counts or the pending rows
  'src/runs/admission.integration.test.ts', // worker heartbeats per pool, waits that end or fail
  'src/runs/run-limits.integration.test.ts', // held runs released one after another by the orchestrator
];

/** Left out: about Redis or BullMQ themselves, with no in-process counterpart to test. */
export const REDIS_ONLY: Record<string, string> = {
  'src/process/lease.integration.test.ts': "reads BullMQ's job hashes, locks, stalled counters and event streams",
  'src/runtime/claims.integration.test.ts': "BullMQ's claim model: locks lapsing across worker processes",
  'src/process/inline-lane.integration.test.ts': 'counts BullMQ jobs and the relay re-adding them (the in-process counterparts are in local-bus)',
  'src/process/inline-lanes.integration.test.ts': "counts BullMQ jobs per pool (a commit's children for another pool of the process are no jobs)",
  'src/runtime/inline-crash.integration.test.ts': 'a worker process killed while the relay must re-add its inline rows as BullMQ jobs',
  'src/runtime/relay.integration.test.ts': 're-adds jobs Redis lost; on the in-process bus the row is the job',
  'src/runs/urgent.integration.test.ts': "counts jobs per BullMQ lane (pool-work and pool-work.urgent); the in-process bus's urgent-first claim is tested in runtime/local-bus.integration.test.ts",
  'src/runtime/relay-repair.integration.test.ts': 'repairs missing or failed BullMQ jobs',
  'src/runtime/redis-restart.integration.test.ts': 'Redis killed and restarted mid-run',
  'src/runtime/probe.integration.test.ts': 'Redis going away and coming back',
  'src/runtime/install.integration.test.ts': "the install's queue-prefix key in Redis",
  'src/runtime/pools.integration.test.ts': "BullMQ's worker list per queue",
  'src/runtime/chaos.integration.test.ts': 'several worker processes on one Postgres, which only Redis can serve',
  'src/runtime/drain.integration.test.ts': "worker and orchestrator processes draining on one Postgres (only Redis serves several); reads BullMQ's attempt and stall counters",
  'src/runtime/leader.integration.test.ts': 'several orchestrator processes on one Postgres, woken over Redis; the embedded database has one process',
  'src/runtime/worker-health.integration.test.ts': 'a worker process on Postgres, which only Redis can serve',
  'src/users/sign-in-limit.integration.test.ts': 'the sign-in limiter keeps its counts in Redis',
  'src/process/guards.integration.test.ts': "asserts the refused route left no BullMQ job (getJobCounts)",
  'src/runs/reopen-run.integration.test.ts': 'two of its four tests remove BullMQ jobs (obliterate) to make the loss it re-opens',
};

/**
 * Left out to keep the matrix short (CI time): the bus only carries their runs' messages, the
 * same way as in the tests above, and what they check happens inside a step, a commit or a query.
 */
export const BUS_INDIFFERENT: Record<string, string> = {
  'src/runs/run-timeline.integration.test.ts': 'aggregates rows it writes itself in SQL; no message moves',
  'src/runtime/local-bus-refusals.integration.test.ts': 'runs on the in-process bus already (it chooses the bus itself)',
  'src/process/join.integration.test.ts': 'join arithmetic on rows, no bus',
  'src/runtime/tracing.integration.test.ts': 'spans are written by the step and commit code both buses share',
  'src/process/join-skips.integration.test.ts': 'join arithmetic on rows, no bus',
  'src/process/commit.integration.test.ts': 'commit retries (deadlocks, isolation) inside one transaction',
  'src/process/run-end.integration.test.ts': 'run ends decided from rows',
  'src/runs/start-entry-run.integration.test.ts': 'the start use case before any message moves',
  'src/runtime/retention.integration.test.ts': 'pruning finished runs',
  'src/members/mesh/nested.integration.test.ts': 'nested runs through the park lane, as ops covers',
  'src/members/workflow/code-pool.integration.test.ts': 'code steps in isolates',
  'src/members/workflow/heavy-steps.integration.test.ts': 'HTTP and SQL steps',
  'src/members/workflow/step-cause.integration.test.ts': 'step error causes',
  'src/members/workflow/steps/sql-own-database.integration.test.ts': 'SQL steps on their own database',
  'src/assistant/ask.integration.test.ts': 'the assistant',
  'src/audit/audit.integration.test.ts': 'the audit chain, no runs',
  'src/meshes/save-mesh.integration.test.ts': 'saving meshes, no runs',
  'src/schedules/schedules.integration.test.ts': 'cron schedules starting runs',
  'src/security/agent-egress.integration.test.ts': 'egress policy inside steps',
  'src/security/budgets.integration.test.ts': 'budgets inside steps',
  'src/security/caps.integration.test.ts': 'sandbox caps inside steps',
  'src/security/egress.integration.test.ts': 'egress policy inside steps',
  'src/security/sandbox-dir.integration.test.ts': 'sandbox directories inside steps',
  'src/security/secrets.integration.test.ts': 'secrets inside steps',
  'src/security/sql-role.integration.test.ts': 'SQL roles inside steps',
  'src/security/sql-session.integration.test.ts': 'SQL sessions, no runs',
  'src/security/tool-secrets.integration.test.ts': 'tool secrets inside steps',
  'src/security/tools.integration.test.ts': 'tools inside steps',
  'src/users/change-user.integration.test.ts': 'users, no runs',
  'src/users/sign-in-oidc.integration.test.ts': 'single sign-on, no runs',
};

/** Integration test files under src/, relative to this package. */
function integrationTests(): string[] {
  const src = fileURLToPath(new URL('./src', import.meta.url));
  return (readdirSync(src, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.integration.test.ts'))
    .map((f) => `src/${f.split('\\').join('/')}`)
    .sort();
}

const listed = [...BOTH_BUSES, ...Object.keys(REDIS_ONLY), ...Object.keys(BUS_INDIFFERENT)];
const present = integrationTests();
const unlisted = present.filter((f) => !listed.includes(f));
if (unlisted.length > 0) {
  throw new Error(`vitest.local-bus.config.ts: ${unlisted.join(', ')} not in BOTH_BUSES, REDIS_ONLY or BUS_INDIFFERENT; add each to one, saying why`);
}
const gone = listed.filter((f) => !present.includes(f));
if (gone.length > 0) throw new Error(`vitest.local-bus.config.ts lists ${gone.join(', ')}, which do not exist`);

export default defineConfig({ ...base, test: { ...base.test, include: BOTH_BUSES, env: { TRELLIS_TEST_BUS: 'local' } } });
