/**
 * Recognises "the database is not reachable right now" among driver errors, so the API answers
 * 503 `unavailable` with Retry-After (a retry can succeed) instead of a 500 (a bug).
 */

/** Node socket errors and Postgres SQLSTATEs of a server that is down, restarting or refusing connections. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  '57P01', // admin_shutdown (server stopping, pg_terminate_backend)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovery)
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08004',
  '08006', // connection exceptions
]);

/** knex / tarn / pg messages that carry no code. */
const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /unable to acquire a connection/i,
  /timeout acquiring a connection/i,
  /timeout exceeded when trying to connect/i, // pg-pool (the API's lean pool)
  /client has encountered a connection error/i,
  /connection (?:is )?(?:closed|ended)/i,
  /server closed the connection unexpectedly/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
];

export function isDependencyUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  // Drivers wrap: MikroORM's DriverException copies the pg error's fields, AggregateError holds the
  // per-address failures of a connect, `cause` chains the rest.
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const e = current as { code?: unknown; message?: unknown; name?: unknown; errors?: unknown[]; cause?: unknown };
    if (e.name === 'ConnectionException') return true;
    if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(e.message as string))) return true;
    if (Array.isArray(e.errors) && e.errors.some((inner) => isDependencyUnavailable(inner))) return true;
    current = e.cause;
  }
  return false;
}

/** Postgres ended this transaction because of a concurrent one: deadlock_detected, serialization_failure. */
const TRANSACTION_CONFLICT_CODES = new Set(['40P01', '40001']);

/**
 * True when the database rolled this transaction back to resolve a collision with a concurrent one: nothing of it was
 * written and the same request can succeed when retried (503 with a short Retry-After, not a 500).
 */
export function isTransactionConflict(err: unknown): boolean {
  return someInCauseChain(err, ({ code }) => typeof code === 'string' && TRANSACTION_CONFLICT_CODES.has(code));
}

/** Whether `test` holds for the error or one of its causes (a cyclic chain is walked once). */
function someInCauseChain(err: unknown, test: (e: { code?: unknown; message?: unknown }) => boolean): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    if (test(current as { code?: unknown; message?: unknown })) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Seconds a client should wait before retrying after a transaction conflict (the collision is usually over). */
export const CONFLICT_RETRY_AFTER_S = 1;

/** Seconds a client should wait before retrying after a dependency outage. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

/** gRPC DEADLINE_EXCEEDED and UNAVAILABLE: the workflow engine did not answer in time or is down. */
const RPC_UNAVAILABLE = new Set([4, 14]);

/** True for a workflow-engine call that failed because the engine is down or too slow (retry later). */
export function isRpcUnavailable(err: unknown): boolean {
  const rpcDown = ({ code, message }: { code?: unknown; message?: unknown }): boolean =>
    (typeof code === 'number' && RPC_UNAVAILABLE.has(code)) ||
    (typeof message === 'string' && /\b(?:14 UNAVAILABLE|4 DEADLINE_EXCEEDED)\b/.test(message));
  return someInCauseChain(err, rpcDown) || isDependencyUnavailable(err);
}
