/** Server start for instrumentation.ts: start the runtime before the first request arrives. */
import { getRuntime } from './runtime';

export async function startServerRuntime(): Promise<void> {
  try {
    await getRuntime();
  } catch (err) {
    // Requests retry the start and show this same sentence, so the server stays up to say what to fix.
    process.stderr.write(`[trellis] could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  }
}
