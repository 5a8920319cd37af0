/** Reading a failed call for people: the server already made the message safe; findings ride along. */
import { TRPCClientError } from '@trpc/client';
import type { Finding } from '@trellis/mesh/findings';

export function errorMessage(err: unknown): string {
  if (err instanceof TRPCClientError || err instanceof Error) return err.message;
  return 'something went wrong';
}

export function errorFindings(err: unknown): Finding[] {
  if (!(err instanceof TRPCClientError)) return [];
  const findings = (err.data as { findings?: Finding[] } | undefined)?.findings;
  return Array.isArray(findings) ? findings : [];
}

/** True when the server answered that the thing asked for does not exist (HTTP 404). */
export function isNotFound(err: unknown): boolean {
  return err instanceof TRPCClientError && (err.data as { code?: string } | undefined)?.code === 'NOT_FOUND';
}
