/** Rendering the kustomize overlays under docker/kubernetes with the `kubectl` on the PATH. */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/** The repository root, from this file's location. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** docker/kubernetes, where the base, components, overlays and dashboard live. */
export const KUBERNETES_DIR = fileURLToPath(new URL('../../../docker/kubernetes/', import.meta.url));

/** One rendered Kubernetes object, as parsed from YAML (checked later, not trusted). */
export type K8sObject = Record<string, unknown>;

/**
 * Parses a multi-document YAML stream into its objects (empty documents are skipped).
 * @throws Error naming the document and the YAML error when a document does not parse.
 */
export function parseObjects(text: string): K8sObject[] {
  const objects: K8sObject[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    if (doc.errors.length > 0) throw new Error(`YAML document ${i + 1}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return;
    if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`YAML document ${i + 1} is not an object`);
    objects.push(value as K8sObject);
  });
  return objects;
}

/**
 * Renders `dir` (a kustomization directory, absolute or relative to docker/kubernetes) with
 * `kubectl kustomize`, offline: kustomize reads only local files here.
 * @throws Error carrying kubectl's message when the build fails (a bad patch, a missing file), or
 *   saying kubectl is missing.
 */
export function kustomize(dir: string): K8sObject[] {
  const path = fileURLToPath(new URL(dir, `file://${KUBERNETES_DIR}`));
  let out: string;
  try {
    out = execFileSync('kubectl', ['kustomize', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('kubectl is not on the PATH: the deployment files are rendered with `kubectl kustomize` (kubectl 1.27+, kustomize v5)');
    }
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`kubectl kustomize ${dir} failed: ${stderr.trim() || (err instanceof Error ? err.message : String(err))}`);
  }
  return parseObjects(out);
}
