// One message's JavaScript in a fresh isolated-vm isolate: shared by the one-shot sandbox process
// (code-runner.mjs) and the warm one (pool-runner.mjs). Every call makes a new Isolate and disposes
// of it before answering, so nothing the code leaves on `globalThis` (or anywhere in its heap)
// reaches the next message, even in a process that serves many.
//
// input: { source, payload, context: { messageId, idempotencyKey }, timeoutMs, memoryMb, network: string[],
//   egress: { allow: string[], internal: string[] } (the install's egress policy), writeDir? (a fresh scratch directory the server made) }
// answer: { ok: true, value, logs } | { ok: true, keep: true, logs } | { ok: false, kind: 'threw'|'timeout'|'memory', message }
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { egressFetch } from './egress-core.mjs';

function hostAllowed(host, allow) {
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return allow.some((a) => {
    const entry = a.toLowerCase();
    return entry.includes(':') ? entry === host.toLowerCase() : entry === name;
  });
}

// Host functions never reject into the isolate (a rejected host promise would end this process):
// they answer { value } or { error } and the in-isolate wrapper throws.
const answer = (fn) => async (...args) => {
  try {
    return { value: await fn(...args) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
};

async function grant(ivm, jail, input) {
  const grants = [];
  if (input.network.length > 0) {
    // A fetch for this step's listed hosts only, under the install's egress policy: refused ranges
    // are checked after DNS resolution and on every redirect hop (egress-core.mjs).
    await jail.set(
      '__fetch',
      new ivm.Reference(
        answer(async (url, init) => {
          const target = new URL(String(url));
          if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`fetch: ${target.protocol} is not allowed`);
          if (!hostAllowed(target.host, input.network)) throw new Error(`fetch: host ${target.host} is not granted to this step`);
          const res = await egressFetch(target, { ...(init ?? {}), redirect: 'follow' }, input.egress ?? { allow: [], internal: [] });
          return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
        }),
      ),
    );
    grants.push(`global.fetch = async (url, init) => {
      const a = await __fetch.apply(undefined, [String(url), init === undefined ? undefined : JSON.parse(JSON.stringify(init))],
        { arguments: { copy: true }, result: { promise: true, copy: true } });
      if (a.error !== undefined) throw new Error(a.error);
      const r = a.value;
      return { status: r.status, ok: r.status >= 200 && r.status < 300, headers: r.headers,
        text: async () => r.body, json: async () => JSON.parse(r.body) };
    };`);
  }
  if (input.writeDir) {
    const root = path.resolve(input.writeDir);
    await jail.set(
      '__writeFile',
      new ivm.Reference(
        answer(async (name, text) => {
          const target = path.resolve(root, String(name));
          if (target !== root && !target.startsWith(root + path.sep)) throw new Error(`writeFile: ${name} is outside the granted directory`);
          await mkdir(path.dirname(target), { recursive: true });
          await writeFile(target, String(text));
          return null;
        }),
      ),
    );
    grants.push(`global.writeFile = async (name, text) => {
      const a = await __writeFile.apply(undefined, [String(name), String(text)],
        { arguments: { copy: true }, result: { promise: true, copy: true } });
      if (a.error !== undefined) throw new Error(a.error);
    };`);
  }
  return grants;
}

/** Runs `input.source` in a new isolate of `input.memoryMb` MB for at most `input.timeoutMs` ms; never throws. */
export async function runInIsolate(ivm, input) {
  const isolate = new ivm.Isolate({ memoryLimit: input.memoryMb });
  let timer;
  try {
    const context = await isolate.createContext();
    const jail = context.global;
    await jail.set('global', jail.derefInto());
    await jail.set('__payload', new ivm.ExternalCopy(input.payload ?? null).copyInto());
    await jail.set('__context', new ivm.ExternalCopy(input.context ?? {}).copyInto());
    const logs = [];
    await jail.set('__log', new ivm.Callback((line) => void (logs.length < 100 && logs.push(String(line).slice(0, 2000)))));
    const grants = await grant(ivm, jail, input);
    const wrapped = `
      global.console = { log: (...a) => __log(a.map(String).join(' ')), error: (...a) => __log(a.map(String).join(' ')) };
      ${grants.join('\n')}
      (async function (payload, context) {
      ${input.source}
      })(__payload, __context).then((value) => JSON.stringify(value === undefined ? { __keep: true } : { value }));`;
    const deadline = new Promise((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, kind: 'timeout', message: `ran longer than ${input.timeoutMs} ms` }), input.timeoutMs);
    });
    const run = (async () => {
      try {
        const script = await isolate.compileScript(wrapped, { filename: 'step.js' });
        const out = await script.run(context, { timeout: input.timeoutMs, promise: true, copy: true });
        const parsed = JSON.parse(out);
        return parsed.__keep ? { ok: true, keep: true, logs } : { ok: true, value: parsed.value ?? null, logs };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (isolate.isDisposed || /memory limit/i.test(message)) {
          return { ok: false, kind: 'memory', message: `ran past its memory limit of ${input.memoryMb} MB` };
        }
        if (/execution timed out/i.test(message)) return { ok: false, kind: 'timeout', message: `ran longer than ${input.timeoutMs} ms` };
        const stack = err instanceof Error && typeof err.stack === 'string' ? err.stack.split('\n').slice(0, 3).join(' | ') : message;
        return { ok: false, kind: 'threw', message: stack };
      }
    })();
    return await Promise.race([run, deadline]);
  } catch (err) {
    // Failing to set the isolate up at all (e.g. a payload too large for its heap).
    if (isolate.isDisposed) return { ok: false, kind: 'memory', message: `ran past its memory limit of ${input.memoryMb} MB` };
    return { ok: false, kind: 'threw', message: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
    if (!isolate.isDisposed) isolate.dispose();
  }
}
