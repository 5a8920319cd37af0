/** What the REST API (@trellis/api/rest) needs from the web app: the shared engine and the session's user. */
import type { RestEnv } from '@trellis/api/rest/contract';
import { currentUser } from './auth';
import { getRuntime } from './runtime';

export const restEnv: RestEnv = {
  engine: async () => (await getRuntime()).engine,
  user: () => currentUser(),
};
