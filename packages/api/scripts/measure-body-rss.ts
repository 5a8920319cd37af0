/**
 * RSS growth of reading a 200 MB upload, for docs: `node --expose-gc --import tsx scripts/measure-body-rss.ts legacy|capped`.
 * `legacy` reads the body whole as the upload path did before the cap (`req.arrayBuffer()`);
 * `capped` reads it through `readBody` under TRELLIS_MAX_UPLOAD_BYTES. The body streams in 1 MiB
 * chunks generated on the fly, so only what the reader keeps shows in the figure.
 */
import { readBody } from '../src/rest/read-request';

const MB = 1024 * 1024;
const mode = process.argv[2] === 'legacy' ? 'legacy' : 'capped';
let sent = 0;
const chunk = new Uint8Array(MB).fill(97);
const body = new ReadableStream<Uint8Array>({
  pull(controller) {
    if (sent >= 200) return controller.close();
    sent++;
    controller.enqueue(chunk.slice());
  },
});
const req = new Request('http://127.0.0.1/upload', { method: 'POST', body, headers: { 'x-file-name': 'big.txt' }, duplex: 'half' } as RequestInit);
(globalThis as { gc?: () => void }).gc?.();
const before = process.memoryUsage().rss;
let peak = before;
const watch = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
let outcome: string;
let kept: unknown;
try {
  kept = mode === 'legacy' ? new Uint8Array(await req.arrayBuffer()) : await readBody(req, { kind: 'file', description: '' });
  outcome = 'accepted';
} catch (err) {
  outcome = `refused: ${(err as Error).message}`;
}
peak = Math.max(peak, process.memoryUsage().rss);
clearInterval(watch);
process.stdout.write(`${JSON.stringify({ mode, outcome, chunksRead: sent, rssBeforeMb: Math.round(before / MB), rssPeakGrowthMb: Math.round((peak - before) / MB), kept: kept !== undefined })}\n`);
