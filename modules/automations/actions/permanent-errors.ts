import { DomainError } from '../../../platform/errors';

/** Domain errors no retry can fix. */
const PERMANENT: ReadonlySet<string> = new Set([
  'validation',
  'not_found',
  'not_configured',
  'forbidden',
  'conflict',
  'invalid_state',
  'too_large',
  'unauthenticated',
]);

/** A step that fails with one of these is not retried (automation nodes and sequence steps alike). */
export const isPermanentError = (err: unknown): boolean => err instanceof DomainError && PERMANENT.has(err.code);
