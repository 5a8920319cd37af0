/** The size and depth caps on a mesh definition, checked on save, import and validate before parsing. */
import { limits } from './env';
import { checkJsonText, checkJsonValue } from './json-guard';

/**
 * Refuses a mesh definition (JSON text or a parsed value) over TRELLIS_MAX_MESH_BYTES or nested
 * deeper than TRELLIS_MAX_JSON_DEPTH, before zod or the validator walk it.
 * @throws LimitExceededError naming the cap and the figure.
 */
export function guardMeshDefinition(definition: unknown): void {
  const size = { maxBytes: limits().maxMeshBytes, cap: 'maxMeshBytes' as const };
  if (typeof definition === 'string') checkJsonText(definition, 'the mesh definition', size);
  else checkJsonValue(definition, 'the mesh definition', size);
}
