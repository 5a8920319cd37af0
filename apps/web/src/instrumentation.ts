/**
 * Runs once when the server starts: opens the database, migrates it, makes sure an admin exists,
 * seeds the example meshes and (unless TRELLIS_ENGINE=external) starts the engine in this process.
 * A failure is logged with what to fix; requests then retry and show the same sentence.
 */
export async function register(): Promise<void> {
  // The literal `process.env.NEXT_RUNTIME` is replaced at build time, which lets the bundler drop the
  // Node-only import (pg, PGlite, BullMQ) from the edge build; read through env.ts it could not.
  // eslint-disable-next-line no-restricted-properties
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    // Before the first request: every request carries its socket's peer, which Next would drop.
    const { installPeerStamp } = await import('@trellis/api/security/client-address');
    installPeerStamp();
    const { startServerRuntime } = await import('./server/start');
    await startServerRuntime();
  }
}
