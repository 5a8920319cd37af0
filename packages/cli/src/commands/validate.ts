/**
 * `trellis validate <mesh.json> [--json]`: exit 0 valid, 1 findings (not JSON, not trellis.mesh/v1 or invalid),
 * 2 when the file cannot be read.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hasErrors, type Finding } from '@trellis/mesh/findings';
import { parseMeshFile } from '@trellis/mesh/parse';
import type { Mesh } from '@trellis/mesh/schema';
import { validateMesh } from '@trellis/mesh/validate';
import { EXIT } from '../fail';
import { readText } from '../files';

/** Validates a mesh file; nested meshes are looked up as `<name>.json` beside it. */
export async function validateCommand(file: string, opts: { json?: boolean }): Promise<number> {
  const text = await readText(file, 'mesh file');
  const parsed = parseMeshFile(text);
  const findings = parsed.ok ? validateMesh(parsed.mesh, siblingResolver(file)) : parsed.findings;
  const valid = parsed.ok && !hasErrors(findings);
  if (opts.json) process.stdout.write(`${JSON.stringify({ valid, findings })}\n`);
  else printFindings(file, valid, findings);
  return valid ? EXIT.ok : EXIT.failed;
}

/** Prints findings one per line: `error head_missing [member x]: message`. */
export function printFindings(file: string, valid: boolean, findings: readonly Finding[]): void {
  for (const f of findings) {
    const where = f.member ? ` [member ${f.member}]` : f.channel ? ` [channel ${f.channel}]` : '';
    process.stdout.write(`${f.severity} ${f.code}${where}: ${f.message}\n`);
  }
  process.stdout.write(valid ? `${file}: valid\n` : `${file}: not valid\n`);
}

function siblingResolver(file: string): (name: string) => Mesh | undefined {
  const cache = new Map<string, Mesh | undefined>();
  return (name) => {
    if (!cache.has(name)) {
      let mesh: Mesh | undefined;
      try {
        const r = parseMeshFile(readFileSync(join(dirname(file), `${name}.json`), 'utf8'));
        mesh = r.ok ? r.mesh : undefined;
      } catch {
        mesh = undefined;
      }
      cache.set(name, mesh);
    }
    return cache.get(name);
  };
}
