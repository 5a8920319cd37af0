/** JSON logs (TRELLIS_LOG_FORMAT=json): one object per line, ids named alike, secrets never written. */
import { describe, expect, it } from 'vitest';
import { jsonLogger, scrubCredentials } from './log';

function capture(verbose = true): { lines: () => Record<string, unknown>[]; raw: () => string; log: ReturnType<typeof jsonLogger> } {
  let text = '';
  const log = jsonLogger({ verbose, base: { service: 'trellis-test' }, destination: { write: (s: string) => void (text += s) } });
  return { log, raw: () => text, lines: () => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('jsonLogger', () => {
  it('writes one JSON object per line with level, time, msg, the base fields and the run and message ids', () => {
    const { log, lines } = capture();
    log.warn('step stopped', { run: 'r-1', message: 'ab'.repeat(32), reason: 'lease lapsed' });
    log.info('runs pruned', { runs: 3 });
    const [first, second] = lines();
    expect(first).toMatchObject({ level: 40, msg: 'step stopped', service: 'trellis-test', runId: 'r-1', messageId: 'ab'.repeat(32), reason: 'lease lapsed' });
    expect(typeof first?.time).toBe('number');
    expect(second).toMatchObject({ level: 30, msg: 'runs pruned', runs: 3 });
  });

  it('logs info only when verbose', () => {
    const { log, lines } = capture(false);
    log.info('quiet');
    log.error('loud');
    expect(lines().map((l) => l.msg)).toEqual(['loud']);
  });

  it('redacts tokens, passwords, authorization headers and the credentials of connection strings', () => {
    const { log, raw, lines } = capture();
    log.error('request failed', {
      token: 'tok-SECRET-1',
      password: 'pw-SECRET-2',
      headers: { authorization: 'Bearer SECRET-3', cookie: 'sid=SECRET-4', accept: 'text/html' },
      webhook: { secret: 'SECRET-5', apiKey: 'SECRET-6' },
      DATABASE_URL: 'postgres://trellis:SECRET-7@db.internal:5432/trellis',
      redisUrl: 'redis://:SECRET-8@cache.internal:6379',
      error: 'connect ECONNREFUSED postgres://app:SECRET-9@10.0.0.5/trellis',
    });
    log.warn('could not reach redis://default:SECRET-10@cache:6379');
    const text = raw();
    for (let i = 1; i <= 10; i++) expect(text).not.toContain(`SECRET-${i}`);
    const [first, second] = lines();
    expect(first).toMatchObject({
      token: '[redacted]',
      password: '[redacted]',
      headers: { authorization: '[redacted]', cookie: '[redacted]', accept: 'text/html' },
      webhook: { secret: '[redacted]', apiKey: '[redacted]' },
      // The host stays readable; only the password goes.
      DATABASE_URL: 'postgres://trellis:[redacted]@db.internal:5432/trellis',
      redisUrl: 'redis://:[redacted]@cache.internal:6379',
      error: 'connect ECONNREFUSED postgres://app:[redacted]@10.0.0.5/trellis',
    });
    expect(second?.msg).toBe('could not reach redis://default:[redacted]@cache:6379');
  });
});

describe('scrubCredentials', () => {
  it.each([
    ['postgres://u:p@h/db', 'postgres://u:[redacted]@h/db'],
    ['redis://:p@h:6379/0', 'redis://:[redacted]@h:6379/0'],
    ['redis://h:6379', 'redis://h:6379'],
    ['https://example.com/a:b@c', 'https://example.com/a:b@c'],
    ['two: postgres://a:1@x and redis://b:2@y', 'two: postgres://a:[redacted]@x and redis://b:[redacted]@y'],
  ])('%s', (input, want) => expect(scrubCredentials(input)).toBe(want));
});
