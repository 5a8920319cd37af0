/**
 * Caps that keep one mesh author from starving everyone, read once from the environment (this file
 * and ../env.ts are the only ones here that read `process.env`). Every refusal names its cap by the
 * variable that sets it, so an admin knows what to raise.
 */
import { z } from 'zod';

const int = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const LimitsSchema = z.object({
  TRELLIS_MAX_SPLIT_BRANCHES: int(100_000),
  TRELLIS_MAX_RUN_MESSAGES: int(1_000_000),
  TRELLIS_MAX_BODY_BYTES: int(4 * 1024 * 1024),
  TRELLIS_MAX_UPLOAD_BYTES: int(25 * 1024 * 1024),
  TRELLIS_MAX_MESH_BYTES: int(1024 * 1024),
  TRELLIS_MAX_JSON_DEPTH: int(64),
  TRELLIS_MAX_SANDBOXES: int(4),
  TRELLIS_SANDBOX_MEMORY_MB: int(1536),
});

/** The caps in force; each field says its unit and the variable that sets it. */
export interface Limits {
  /** Parts one split may send (TRELLIS_MAX_SPLIT_BRANCHES, default 100 000). */
  maxSplitBranches: number;
  /** Messages one run may create, its head included (TRELLIS_MAX_RUN_MESSAGES, default 1 000 000). */
  maxRunMessages: number;
  /** Bytes of a JSON request body, REST or tRPC (TRELLIS_MAX_BODY_BYTES, default 4 MiB). */
  maxBodyBytes: number;
  /** Bytes of an uploaded document (TRELLIS_MAX_UPLOAD_BYTES, default 25 MiB). */
  maxUploadBytes: number;
  /** Bytes of a mesh definition as JSON, on save and validate (TRELLIS_MAX_MESH_BYTES, default 1 MiB). */
  maxMeshBytes: number;
  /** Nesting of arrays and objects in a mesh definition or request body (TRELLIS_MAX_JSON_DEPTH, default 64). */
  maxJsonDepth: number;
  /** Code sandboxes one worker process runs at once (TRELLIS_MAX_SANDBOXES, default 4). */
  maxSandboxes: number;
  /** Sum of the memory limits of the sandboxes one worker runs at once, MB (TRELLIS_SANDBOX_MEMORY_MB, default 1536). */
  sandboxMemoryMb: number;
}

/** The variable that sets each cap, for refusals. */
export const LIMIT_VARIABLE: Readonly<Record<keyof Limits, string>> = {
  maxSplitBranches: 'TRELLIS_MAX_SPLIT_BRANCHES',
  maxRunMessages: 'TRELLIS_MAX_RUN_MESSAGES',
  maxBodyBytes: 'TRELLIS_MAX_BODY_BYTES',
  maxUploadBytes: 'TRELLIS_MAX_UPLOAD_BYTES',
  maxMeshBytes: 'TRELLIS_MAX_MESH_BYTES',
  maxJsonDepth: 'TRELLIS_MAX_JSON_DEPTH',
  maxSandboxes: 'TRELLIS_MAX_SANDBOXES',
  sandboxMemoryMb: 'TRELLIS_SANDBOX_MEMORY_MB',
};

/**
 * Reads the caps from `env` (default `process.env`).
 * @throws Error naming the variable when a value is not a positive integer.
 */
export function loadLimits(env: Record<string, string | undefined> = process.env): Limits {
  const parsed = LimitsSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid setting ${issue?.path.join('.') ?? '?'}: ${issue?.message ?? 'unreadable'}`);
  }
  const e = parsed.data;
  return {
    maxSplitBranches: e.TRELLIS_MAX_SPLIT_BRANCHES,
    maxRunMessages: e.TRELLIS_MAX_RUN_MESSAGES,
    maxBodyBytes: e.TRELLIS_MAX_BODY_BYTES,
    maxUploadBytes: e.TRELLIS_MAX_UPLOAD_BYTES,
    maxMeshBytes: e.TRELLIS_MAX_MESH_BYTES,
    maxJsonDepth: e.TRELLIS_MAX_JSON_DEPTH,
    maxSandboxes: e.TRELLIS_MAX_SANDBOXES,
    sandboxMemoryMb: e.TRELLIS_SANDBOX_MEMORY_MB,
  };
}

let current: Limits | undefined;

/** The caps of this process, read on first use. */
export function limits(): Limits {
  current ??= loadLimits();
  return current;
}

/** Replaces some caps for this process (tests, embedding); returns a function that restores them. */
export function overrideLimits(changes: Partial<Limits>): () => void {
  const before = limits();
  current = { ...before, ...changes };
  return () => {
    current = before;
  };
}
