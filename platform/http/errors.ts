import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Context, Next } from 'koa';
import { ZodError } from 'zod';
import { DomainError, type DomainErrorCode } from '../errors';
import { formatZodError } from '../shared/schemas';
import {
  CONFLICT_RETRY_AFTER_S,
  isDependencyUnavailable,
  isTransactionConflict,
  UNAVAILABLE_RETRY_AFTER_S,
} from '../shared/unavailable';

/** The one table from domain error codes to HTTP statuses. */
export const STATUS_BY_CODE: Record<DomainErrorCode, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid_state: 409,
  too_large: 413,
  rate_limited: 429,
  not_configured: 503,
  upstream_failed: 502,
  unavailable: 503,
  idempotency_mismatch: 422,
  idempotency_in_progress: 409,
  gone: 410,
};

interface HttpishError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  type?: string;
  headers?: Record<string, string>;
}

export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The response for a failure, or null for an unknown error (a logged 500). */
export function renderError(err: unknown): RenderedError | null {
  if (err instanceof DomainError) {
    const headers =
      err.code === 'unavailable' ? { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S), ...err.headers } : err.headers;
    return {
      status: STATUS_BY_CODE[err.code],
      body: { error: err.message, code: err.code, ...(err.details !== undefined ? { details: err.details } : {}) },
      headers,
    };
  }
  if (err instanceof ZodError) {
    const { message, details } = formatZodError(err, 'request');
    return { status: 400, body: { error: message, code: 'validation', details } };
  }
  if (err instanceof UniqueConstraintViolationException) {
    return { status: 409, body: { error: 'a record with the same unique value already exists', code: 'conflict' } };
  }
  const httpErr = err as HttpishError;
  const status = httpErr.status ?? httpErr.statusCode;
  if (status && status >= 400 && status < 500) {
    return {
      status,
      body: { error: clientMessage(status, httpErr), code: status === 413 ? 'too_large' : 'http' },
      headers: httpErr.headers,
    };
  }
  if (isDependencyUnavailable(err)) {
    return {
      status: 503,
      body: { error: 'the database is unavailable; retry later', code: 'unavailable' },
      headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) },
    };
  }
  if (isTransactionConflict(err)) {
    return {
      status: 503,
      body: {
        error: 'the change collided with a concurrent one and was rolled back (nothing was written); retry',
        code: 'unavailable',
      },
      headers: { 'Retry-After': String(CONFLICT_RETRY_AFTER_S) },
    };
  }
  return null;
}

/** Turns every failure into `{ error }` with the right status; unknown errors are a logged 500. */
export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    const rendered = renderError(err);
    if (rendered) {
      if (rendered.status === 503)
        ctx.state.log?.warn(
          { requestId: ctx.state.requestId, code: (err as { code?: unknown }).code },
          'dependency unavailable',
        );
      ctx.status = rendered.status;
      ctx.body = rendered.body;
      if (rendered.headers) ctx.set(rendered.headers);
      return;
    }
    ctx.state.log?.error({ err, requestId: ctx.state.requestId }, 'unhandled error');
    ctx.status = 500;
    ctx.body = { error: 'internal server error', code: 'internal', requestId: ctx.state.requestId };
  }
}

function clientMessage(status: number, err: HttpishError): string {
  if (status === 413) return 'request body too large';
  // co-body throws the SyntaxError of JSON.parse with status 400 attached.
  if (status === 400 && (err.type === 'entity.parse.failed' || err instanceof SyntaxError))
    return 'malformed JSON body';
  if (status === 415)
    return /content-encoding/i.test(err.message ?? '')
      ? `${err.message}; send gzip, deflate, br or an uncompressed body`
      : 'unsupported content type; send application/json';
  if (status === 405) return err.message || 'method not allowed';
  return err.expose && err.message ? err.message : 'bad request';
}
