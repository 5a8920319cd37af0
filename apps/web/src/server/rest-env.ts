/** What the REST API (@trellis/api/rest) needs from the web app: the shared engine and the session's claims. */
import type { RestEnv } from '@trellis/api/rest/contract';
import { currentSession } from './auth';
import { getRuntime } from './runtime';

export const restEnv: RestEnv = {
  engine: async () => (await getRuntime()).engine,
  session: () => currentSession(),
  database: async () => (await getRuntime()).handle,
};
