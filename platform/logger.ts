import pino, { type DestinationStream, type Logger } from 'pino';

// Secrets never reach the log: credentials are redacted wherever they could appear.
export function createLogger(level: string, name: string, destination?: DestinationStream): Logger {
  return pino(
    {
      name,
      level,
      redact: {
        paths: [
          'authorization',
          'apiKey',
          'api_key',
          'secret',
          'password',
          'headers.authorization',
          'headers["x-webhook-secret"]',
          '*.apiKey',
          '*.secret',
        ],
        censor: '[redacted]',
      },
      // `error` too: some log lines carry an error message string under that key.
      serializers: { err: serializeError, error: serializeError },
    },
    destination,
  );
}
export type { Logger };

/** Lines are held until about this many bytes are buffered… */
const BATCH_BYTES = 4096;
/** …or this long at most. */
const BATCH_MS = 200;

/**
 * The API's log destination: asynchronous, and lines go out in batches of about 4 KB (or after
 * 200 ms at most) instead of a write(2) per request line; pino flushes what is left on exit.
 */
export function batchedDestination(dest: number | string): DestinationStream {
  const stream = pino.destination({ dest, sync: false, minLength: BATCH_BYTES });
  const timer = setInterval(() => {
    try {
      stream.flush();
    } catch {
      clearInterval(timer); // destroyed (process ending)
    }
  }, BATCH_MS);
  timer.unref();
  return stream;
}

/** Common SQLSTATEs by name, so a log line says what failed without the statement. */
const SQL_CONDITIONS: Record<string, string> = {
  '22001': 'string_data_right_truncation',
  '22003': 'numeric_value_out_of_range',
  '22007': 'invalid_datetime_format',
  '22008': 'datetime_field_overflow',
  '22021': 'character_not_in_repertoire',
  '22P02': 'invalid_text_representation',
  '22P05': 'untranslatable_character',
  '23502': 'not_null_violation',
  '23503': 'foreign_key_violation',
  '23505': 'unique_violation',
  '23514': 'check_violation',
  '40001': 'serialization_failure',
  '40P01': 'deadlock_detected',
  '42P01': 'undefined_table',
  '42703': 'undefined_column',
  '53300': 'too_many_connections',
  '57014': 'query_canceled',
  '57P01': 'admin_shutdown',
};

const SQLSTATE_RE = /^[0-9A-Z]{5}$/;
// knex prefixes driver errors with the statement, values inlined: "<statement> - <message>".
// Linear-time checks (no nested quantifiers): a statement keyword plus knex's " - " separator.
const STATEMENT_KEYWORD_RE =
  /\b(?:insert\s+into|update\s+"?[\w.]+"?\s+set|delete\s+from|select\s|with\s+"?\w+"?\s+as|copy\s|merge\s+into)/i;
const hasStatement = (text: string): boolean => text.includes(' - ') && STATEMENT_KEYWORD_RE.test(text);

interface DbErrorLike {
  name: string;
  code: string;
  table?: string;
  column?: string;
  constraint?: string;
  routine?: string;
  stack?: string;
}

/** A Postgres (pg / MikroORM DriverException) error: its message and detail carry statement values. */
function isDbError(err: unknown): err is Error & DbErrorLike {
  if (!(err instanceof Error)) return false;
  const e = err as Error & Partial<DbErrorLike> & { severity?: unknown; sqlState?: unknown };
  return (
    typeof e.code === 'string' &&
    SQLSTATE_RE.test(e.code) &&
    (e.severity !== undefined || e.routine !== undefined || e.name.endsWith('Exception'))
  );
}

const stackFrames = (stack: string | undefined): string | undefined =>
  stack
    ?.split('\n')
    .filter((line) => line.trim().startsWith('at '))
    .join('\n');

/** A statement-bearing text (the ORM inlines values into statements) as a placeholder, else unchanged. */
export function withoutStatement(text: string): string {
  return hasStatement(text) ? '[statement withheld] database error' : text;
}

/**
 * The `err` serializer: database errors become their SQLSTATE, condition name and the table /
 * column / constraint involved, never the statement, its parameters, Postgres' message or detail
 * (which quote values such as e-mail addresses). Other errors keep their type, message, stack and
 * own fields; each cause is serialized the same way (not folded into the message).
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (isDbError(err)) {
    const condition = SQL_CONDITIONS[err.code];
    return {
      type: err.name,
      code: err.code,
      ...(condition ? { condition } : {}),
      message: `database error ${err.code}${condition ? ` (${condition})` : ''}`,
      ...(err.table ? { table: err.table } : {}),
      ...(err.column ? { column: err.column } : {}),
      ...(err.constraint ? { constraint: err.constraint } : {}),
      stack: stackFrames(err.stack),
    };
  }
  if (typeof err === 'string') return withoutStatement(err);
  if (!(err instanceof Error)) return err;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(err)) {
    if (key !== 'cause') out[key] = typeof value === 'string' ? withoutStatement(value) : value;
  }
  out.type = err.constructor?.name ?? err.name;
  const leaky = hasStatement(err.message);
  out.message = withoutStatement(err.message);
  out.stack = leaky ? stackFrames(err.stack) : err.stack;
  const cause = (err as { cause?: unknown }).cause;
  if (cause !== undefined) out.cause = depth < 5 ? serializeError(cause, depth + 1) : '[cause chain truncated]';
  return out;
}
