/**
 * POST /api/v1/meshes/:id/runs — start a run of the mesh's latest version (or `?version=n`) on an
 * uploaded document. The body is the file's bytes (any content type), or multipart form data with a
 * `file` field. Answers 201 `{ runId }`; errors are `{ error: { code, message, findings? } }` with the
 * same codes as the tRPC API, never a stack trace.
 */
import { describeApiError } from '@trellis/api/errors';
import { startRun } from '@trellis/engine/runs/start-run';
import { currentUser } from '@/server/auth';
import { getRuntime } from '@/server/runtime';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

function fail(status: number, code: string, message: string, findings?: unknown): Response {
  return Response.json({ error: { code, message, ...(findings ? { findings } : {}) } }, { status });
}

async function readInput(req: Request): Promise<{ name?: string; bytes: Uint8Array }> {
  if ((req.headers.get('content-type') ?? '').startsWith('multipart/form-data')) {
    const file = (await req.formData()).get('file');
    if (!(file instanceof Blob)) throw new Error('no_file');
    const name = 'name' in file && typeof file.name === 'string' ? file.name : undefined;
    return { ...(name ? { name } : {}), bytes: new Uint8Array(await file.arrayBuffer()) };
  }
  const name = req.headers.get('x-file-name');
  return { ...(name ? { name: decodeURIComponent(name) } : {}), bytes: new Uint8Array(await req.arrayBuffer()) };
}

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const user = await currentUser();
  if (!user) return fail(401, 'unauthorized', 'sign in to continue');
  const { id } = await ctx.params;
  const versionParam = new URL(req.url).searchParams.get('version');
  const version = versionParam === null ? undefined : Number(versionParam);
  if (version !== undefined && !(Number.isInteger(version) && version > 0)) {
    return fail(400, 'bad_input', 'version must be a positive whole number');
  }
  let input: { name?: string; bytes: Uint8Array };
  try {
    input = await readInput(req);
  } catch {
    return fail(400, 'bad_input', 'send the document as the request body, or as form data with a "file" field');
  }
  try {
    const rt = await getRuntime();
    const { runId } = await startRun(rt.engine, {
      meshId: id,
      ...(version ? { version } : {}),
      input,
      userId: user.id,
    });
    return Response.json({ runId }, { status: 201, headers: { Location: `/runs/${runId}` } });
  } catch (err) {
    const view = describeApiError(err);
    if (view.httpStatus >= 500 && view.reason === 'internal') {
      process.stderr.write(`[trellis] start run: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
    return fail(view.httpStatus, view.reason, view.message, view.findings);
  }
}
