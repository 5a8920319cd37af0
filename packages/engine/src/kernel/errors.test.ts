import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import type { Finding } from '@trellis/mesh/findings';
import {
  BadInputError,
  describeError,
  EngineError,
  HTTP_STATUSES,
  InputRejectedError,
  MeshInvalidError,
  MeshNotFoundError,
  RedisUnreachableError,
  RunNotFoundError,
  StepError,
  WaitTimeoutError,
} from './errors';
import { ActionNotFoundError, ActionRefusedError } from '../ops/errors';
import { ReopenRefusedError } from '../runs/reopen-plan';
import { ServiceExistsError, ServiceJobConflictError, ServiceJobNotFoundError, ServiceUnauthorizedError } from '../services/errors';

const finding: Finding = { code: 'head_missing', severity: 'error', message: 'No member is the head.' };

// What describeError answered for every engine error before statuses moved onto the classes.
const CASES: [Error, { code: string; status: number; cause?: string; findings?: Finding[] }][] = [
  [new RedisUnreachableError('redis://127.0.0.1:6379', 'ECONNREFUSED'), { code: 'redis_unreachable', status: 503 }],
  [new MeshNotFoundError('x'), { code: 'mesh_not_found', status: 404 }],
  [new MeshInvalidError([finding]), { code: 'mesh_invalid', status: 400, findings: [finding] }],
  [new InputRejectedError('empty'), { code: 'input_rejected', status: 400, cause: 'input_rejected' }],
  [new RunNotFoundError('r1'), { code: 'run_not_found', status: 404 }],
  [new StepError('step_code_failed', 'm', 'boom'), { code: 'step_failed', status: 500, cause: 'step_code_failed' }],
  [new WaitTimeoutError('r1', 5), { code: 'wait_timeout', status: 504 }],
  [new ActionNotFoundError('item i1'), { code: 'action_not_found', status: 404 }],
  [new ActionRefusedError('no'), { code: 'action_refused', status: 409 }],
  [new ReopenRefusedError('r1', 'it is done'), { code: 'reopen_refused', status: 409 }],
  [new ServiceUnauthorizedError('s', true), { code: 'service_unauthorized', status: 401 }],
  [new ServiceJobNotFoundError('s', 'j'), { code: 'service_job_not_found', status: 404 }],
  [new ServiceJobConflictError('j', 'done', 'failed'), { code: 'service_job_conflict', status: 409 }],
  [new ServiceExistsError('s'), { code: 'service_exists', status: 409 }],
];

describe('describeError', () => {
  it.each(CASES)('%s keeps its code, status, cause and findings', (err, expected) => {
    expect(describeError(err)).toEqual({ ...expected, message: err.message });
  });

  it('answers 503 for an unreachable database and a plain 500 for anything else', () => {
    const db = Object.assign(new Error('cannot reach Postgres'), { name: 'DatabaseUnreachableError' });
    expect(describeError(db)).toEqual({ code: 'database_unreachable', status: 503, message: 'cannot reach Postgres' });
    expect(describeError(new Error('secret detail'))).toEqual({ code: 'internal', status: 500, message: 'something went wrong inside Trellis' });
  });

  it('reads an engine error of a second copy of this module by its code and declared status, but no system error', () => {
    // What a BadInputError looks like when the web server's engine was built into another bundle.
    class BadInputError extends Error {
      readonly code = 'bad_input';
      get httpStatus() {
        return 400;
      }
    }
    expect(describeError(new BadInputError('hosts: "x/y" is not a host'))).toEqual({ code: 'bad_input', status: 400, message: 'hosts: "x/y" is not a host' });
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });
    expect(describeError(refused).status).toBe(500);
    expect(describeError(Object.assign(new Error('odd'), { code: 'x', httpStatus: 418 })).status).toBe(500);
  });
});

/** Every non-test module of the engine (src/, one folder up), as an absolute path. */
function engineModules(): string[] {
  const here = dirname(dirname(fileURLToPath(import.meta.url)));
  return readdirSync(here, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => join(here, f));
}

/** Names of every class in the engine's source that descends from EngineError, read from the text. */
function declaredSubclasses(files: string[]): Set<string> {
  // A name may be declared twice in different modules (one an EngineError, one not): any counts.
  const parents = new Map<string, string[]>();
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bclass\s+(\w+)\s+extends\s+(\w+)/g)) {
      const name = m[1] ?? '';
      parents.set(name, [...(parents.get(name) ?? []), m[2] ?? '']);
    }
  }
  const descends = (name: string): boolean => (parents.get(name) ?? []).some((parent) => parent === 'EngineError' || (parent !== name && descends(parent)));
  return new Set([...parents.keys()].filter(descends));
}

describe('HTTP statuses on the error classes', () => {
  it('every EngineError subclass in the engine declares its own status, beside its code', async () => {
    const files = engineModules();
    const found = new Map<string, unknown>();
    for (const file of files) {
      const mod = (await import(file)) as Record<string, unknown>;
      for (const value of Object.values(mod)) {
        if (typeof value === 'function' && value.prototype instanceof EngineError) found.set(value.name, value);
      }
    }
    const declared = declaredSubclasses(files);
    expect(declared.size).toBeGreaterThanOrEqual(CASES.length);
    // A subclass that is not exported could not be checked here: every one must be.
    expect([...found.keys()].sort()).toEqual([...declared].sort());
    const missing = [...found].filter(([, cls]) => !Object.hasOwn(cls as object, 'httpStatus')).map(([name]) => name);
    expect(missing, 'declare `static override readonly httpStatus = <status>` on these classes').toEqual([]);
    for (const [name, cls] of found) expect(HTTP_STATUSES as readonly number[], name).toContain((cls as typeof EngineError).httpStatus);
  }, 60_000);

  it('a bad input refused by the engine is a 400', () => {
    expect(describeError(new BadInputError('service name: expected letters'))).toEqual({ code: 'bad_input', status: 400, message: 'service name: expected letters' });
  });
});

describe('engine errors from a second copy of the engine', () => {
  it('are described with their status, code and cause, though instanceof fails', async () => {
    const here = await import('./errors');
    vi.resetModules();
    const other = await import('./errors');
    expect(other.StepError).not.toBe(here.StepError);
    const foreign = new other.StepError('timed_out', 'fetch', 'the step ran past its limit');
    expect(foreign).not.toBeInstanceOf(here.EngineError);
    expect(here.isEngineError(foreign)).toBe(true);
    expect(here.isEngineError(foreign, 'step_failed')).toBe(true);
    expect(here.isEngineError(foreign, 'bad_input')).toBe(false);
    expect(here.isEngineError(new Error('plain'))).toBe(false);
    expect(here.describeError(foreign)).toEqual({ code: 'step_failed', status: 500, message: 'the step ran past its limit', cause: 'timed_out' });
  });
});
