/**
 * The one decision about input Postgres cannot store: a NUL character (U+0000) or a lone UTF-16
 * surrogate anywhere in a body (values and object keys, at any depth), a query string, a header
 * or a path parameter is refused before any handler runs, naming where it was. Bodies nested
 * deeper than MAX_INPUT_DEPTH are refused too (no recursion anywhere below can overflow).
 * Rejecting (not stripping) keeps what is stored equal to what was sent.
 */
import type { Context, Next } from 'koa';
import { DomainError } from '../errors';

export const MAX_INPUT_DEPTH = 64;

// A high surrogate not followed by a low one, or a low one without a high one before it.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface InputProblem {
  path: string;
  error: string;
}

function charProblem(s: string): string | null {
  const m = UNSTORABLE.exec(s);
  if (!m) return null;
  if (m[0] === '\u0000') return 'contains a NUL character (U+0000), which cannot be stored; remove it';
  const code = m[0].charCodeAt(0).toString(16).toUpperCase();
  return `contains a lone UTF-16 surrogate (U+${code}), which is not valid Unicode; send well-formed text`;
}

/** `a.b.0.c`, like the paths of validation errors; an odd key is shown JSON-escaped, a long one cut. */
const child = (path: string, key: string | number): string => {
  if (typeof key === 'number') return `${path}.${key}`;
  const shown = key.length > 60 ? `${key.slice(0, 60)}…` : key;
  return `${path}.${/^[\w$-]+$/.test(shown) ? shown : JSON.stringify(shown)}`;
};

/**
 * The first unstorable string in `value` (iterative walk: a 10,000-level document is a 400, not a
 * stack overflow), or null. Keys are checked like values.
 */
export function findInputProblem(value: unknown, root: string, maxDepth = MAX_INPUT_DEPTH): InputProblem | null {
  const stack: [unknown, string, number][] = [[value, root, 0]];
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v === 'string') {
      const error = charProblem(v);
      if (error) return { path, error };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return { path, error: `is nested deeper than ${maxDepth} levels` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], child(path, i), depth + 1]);
      continue;
    }
    const keys = Object.keys(v);
    for (const key of keys) {
      const error = charProblem(key);
      if (error) return { path: child(path, key), error: `(an object key) ${error}` };
    }
    for (let i = keys.length - 1; i >= 0; i--)
      stack.push([(v as Record<string, unknown>)[keys[i]!], child(path, keys[i]!), depth + 1]);
  }
  return null;
}

const fail = (problem: InputProblem): never => {
  throw new DomainError('validation', `${problem.path}: ${problem.error}`, [problem]);
};

/** Text bodies that hold JSON are read as JSON by some routes (webhook senders): check that reading too. */
function jsonInText(body: unknown): unknown {
  if (typeof body !== 'string' || !/^\s*[{[]/.test(body)) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** Request headers, query string and parsed body (JSON, form, text); runs right after the body parser. */
export async function inputGuard(ctx: Context, next: Next): Promise<void> {
  for (const [name, value] of Object.entries(ctx.headers)) {
    if (typeof value === 'string' && !UNSTORABLE.test(value)) continue; // the common case, without the walk
    const problem = findInputProblem(value, `header.${name}`);
    if (problem) fail(problem);
  }
  const query = findInputProblem(ctx.query, 'query');
  if (query) fail(query);
  const body = ctx.request.body as unknown;
  const bodyProblem = findInputProblem(body, 'body') ?? findInputProblem(jsonInText(body), 'body');
  if (bodyProblem) fail(bodyProblem);
  await next();
}

/** Path parameters: no record can have such an id, so they answer like a malformed id. */
export function assertStorableParams(params: Record<string, unknown>, notFound: string): void {
  if (findInputProblem(params, 'params')) throw new DomainError('not_found', notFound);
}

/**
 * The body parser's failures as client errors: a body whose Content-Encoding does not match its
 * bytes (broken gzip, deflate or br) is a 400; an unsupported encoding stays 415.
 */
export function bodyParseError(err: unknown, ctx: Context): unknown {
  const status =
    (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
  if (status && status >= 400 && status < 500) return err;
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    return new DomainError(
      'validation',
      `body: not valid ${encoding} data (Content-Encoding: ${encoding}); send the body compressed as declared, or uncompressed`,
    );
  }
  return err;
}
