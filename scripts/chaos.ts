/**
 * `npm run chaos [-- --docs N --freeze-ms MS]`: word-split on ../shared/corpus/licenses.txt with
 * three worker processes on Postgres (TRELLIS_TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
 * and Redis (REDIS_URL); per fault (a worker killed and not restarted, database connections cut,
 * a worker restarted, a worker frozen 40 s then let go) N documents (default 20). Prints a table.
 * Each round uses its own database and queue prefix and removes them afterwards.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chaosTable, runChaos } from '../packages/engine/test/chaos';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '20' },
    'freeze-ms': { type: 'string', default: '40000' },
    corpus: { type: 'string', default: new URL('../../shared/corpus/licenses.txt', import.meta.url).pathname },
  },
});
const docs = Number(values.docs);
const freezeMs = Number(values['freeze-ms']);
if (!Number.isInteger(docs) || docs < 1) throw new Error('--docs must be a positive integer');
const doc = readFileSync(values.corpus);
const say = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
say(`chaos: ${docs} document(s) of ${doc.length} bytes per fault, freeze ${freezeMs / 1000} s`);
const table = await runChaos({ doc, docs, freezeMs, say, timeoutMs: 60 * 60_000 });
process.stdout.write(`${chaosTable(table)}\n`);
process.exit(table.every((r) => r.exact === r.docs && r.lost === 0 && r.duplicateJoins === 0) ? 0 : 1);
