/** Settings of the records-check example service, from the environment. */

/** What the service needs to reach Trellis. */
export interface RecordsCheckEnv {
  baseUrl: string;
  apiKey: string;
  service: string;
}

/** Reads TRELLIS_URL (default http://localhost:3000), TRELLIS_SERVICE_KEY (required), TRELLIS_SERVICE (default records-check). */
export function recordsCheckEnv(env: NodeJS.ProcessEnv = process.env): RecordsCheckEnv {
  const apiKey = env.TRELLIS_SERVICE_KEY;
  if (!apiKey) {
    throw new Error('TRELLIS_SERVICE_KEY is not set: register the service with `npm run trellis -- service add records-check` and export the key it prints');
  }
  return { baseUrl: env.TRELLIS_URL ?? 'http://localhost:3000', apiKey, service: env.TRELLIS_SERVICE ?? 'records-check' };
}
