/** The API's root router: one sub-router per area, one file per procedure. */
import { create } from './routers/meshes/create';
import { get as getMesh } from './routers/meshes/get';
import { importMesh } from './routers/meshes/import';
import { list as listMeshes } from './routers/meshes/list';
import { save } from './routers/meshes/save';
import { validate } from './routers/meshes/validate';
import { get as getRun } from './routers/runs/get';
import { list as listRuns } from './routers/runs/list';
import { messages } from './routers/runs/messages';
import { router } from './trpc';

export const appRouter = router({
  meshes: router({ list: listMeshes, get: getMesh, create, save, import: importMesh, validate }),
  runs: router({ list: listRuns, get: getRun, messages }),
});

export type AppRouter = typeof appRouter;
