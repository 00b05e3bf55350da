/** Closed set of domain error codes; api/http/errors.ts maps each to one HTTP status. */
export type DomainErrorCode =
  | 'validation'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'invalid_state'
  | 'too_large'
  | 'rate_limited'
  | 'not_configured'
  | 'upstream_failed'
  /** A dependency (database, workflow engine) is down for now: 503 with Retry-After. */
  | 'unavailable'
  /** Idempotency-Key reused for a different request (422) or while its first request runs (409). */
  | 'idempotency_mismatch'
  | 'idempotency_in_progress'
  /** A capability link that worked once and no longer does (a voided, expired or completed envelope): 410. */
  | 'gone';

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what: string): DomainError => new DomainError('not_found', `${what} not found`);
export const validation = (message: string, details?: unknown): DomainError =>
  new DomainError('validation', message, details);
export const conflict = (message: string): DomainError => new DomainError('conflict', message);
export const forbidden = (message: string): DomainError => new DomainError('forbidden', message);
