/** The API's root router: one sub-router per area, one file per procedure. */
import { create } from './routers/meshes/create';
import { get as getMesh } from './routers/meshes/get';
import { importMesh } from './routers/meshes/import';
import { list as listMeshes } from './routers/meshes/list';
import { save } from './routers/meshes/save';
import { setPublished } from './routers/meshes/set-published';
import { setUrgent } from './routers/meshes/set-urgent';
import { markUrgent } from './routers/runs/mark-urgent';
import { validate } from './routers/meshes/validate';
import { versions } from './routers/meshes/versions';
import { restore } from './routers/meshes/restore';
import { get as getRun } from './routers/runs/get';
import { list as listRuns } from './routers/runs/list';
import { attempts } from './routers/runs/attempts';
import { messages } from './routers/runs/messages';
import { timeline } from './routers/runs/timeline';
import { reopen } from './routers/runs/reopen';
import { cancel } from './routers/runs/cancel';
import { reopenPreview } from './routers/runs/reopen-preview';
import { act } from './routers/actions/act';
import { decide } from './routers/actions/decide';
import { list as listActions } from './routers/actions/list';
import { people } from './routers/actions/people';
import { feed } from './routers/exceptions/feed';
import { ask } from './routers/assistant/ask';
import { add as addService } from './routers/services/add';
import { list as listServices } from './routers/services/list';
import { me } from './routers/account/me';
import { changePassword } from './routers/account/change-password';
import { add as addUser } from './routers/users/add';
import { list as listUsers } from './routers/users/list';
import { remove as removeUser } from './routers/users/remove';
import { setDisabled } from './routers/users/set-disabled';
import { setRole } from './routers/users/set-role';
import { create as createToken } from './routers/tokens/create';
import { createService as createServiceToken } from './routers/tokens/create-service';
import { list as listTokens } from './routers/tokens/list';
import { revoke as revokeToken } from './routers/tokens/revoke';
import { list as listAudit } from './routers/audit/list';
import { verify as verifyAudit } from './routers/audit/verify';
import { list as listSecrets } from './routers/secrets/list';
import { set as setSecret } from './routers/secrets/set';
import { remove as removeSecret } from './routers/secrets/remove';
import { list as listEgress } from './routers/egress/list';
import { allow as allowEgress } from './routers/egress/allow';
import { remove as removeEgress } from './routers/egress/remove';
import { calls as toolCalls } from './routers/tools/calls';
import { list as listTools } from './routers/tools/list';
import { put as putTool } from './routers/tools/put';
import { remove as removeTool } from './routers/tools/remove';
import { create as createWebhook } from './routers/webhooks/create';
import { list as listWebhooks } from './routers/webhooks/list';
import { remove as removeWebhook } from './routers/webhooks/remove';
import { create as createSchedule } from './routers/schedules/create';
import { list as listSchedules } from './routers/schedules/list';
import { remove as removeSchedule } from './routers/schedules/remove';
import { setEnabled as setScheduleEnabled } from './routers/schedules/set-enabled';
import { router } from './trpc';

export const appRouter = router({
  meshes: router({ list: listMeshes, get: getMesh, create, save, import: importMesh, validate, setPublished, setUrgent, versions, restore }),
  runs: router({ list: listRuns, get: getRun, messages, reopen, reopenPreview, attempts, cancel, markUrgent, timeline }),
  exceptions: router({ feed }),
  services: router({ list: listServices, add: addService }),
  actions: router({ list: listActions, act, decide, people }),
  assistant: router({ ask }),
  users: router({ list: listUsers, add: addUser, setRole, setDisabled, remove: removeUser }),
  account: router({ me, changePassword }),
  audit: router({ list: listAudit, verify: verifyAudit }),
  tokens: router({ list: listTokens, create: createToken, createService: createServiceToken, revoke: revokeToken }),
  secrets: router({ list: listSecrets, set: setSecret, remove: removeSecret }),
  egress: router({ list: listEgress, allow: allowEgress, remove: removeEgress }),
  tools: router({ list: listTools, put: putTool, remove: removeTool, calls: toolCalls }),
  webhooks: router({ list: listWebhooks, create: createWebhook, remove: removeWebhook }),
  schedules: router({ list: listSchedules, create: createSchedule, setEnabled: setScheduleEnabled, remove: removeSchedule }),
});

export type AppRouter = typeof appRouter;
