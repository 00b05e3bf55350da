import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Context, Next } from 'koa';
import { ZodError } from 'zod';
import { DomainError, type DomainErrorCode } from '../../domain/errors';

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
};

export function formatZodError(err: ZodError, where: string): { message: string; details: { path: string; error: string }[] } {
  const details = err.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || where,
    error: issue.message,
  }));
  const first = details[0];
  const message = first ? `${where}: ${first.path === where ? '' : first.path + ': '}${first.error}` : `invalid ${where}`;
  return { message, details };
}

interface HttpishError { status?: number; statusCode?: number; expose?: boolean; message?: string; type?: string; headers?: Record<string, string> }

/** Turns every failure into `{ error }` with the right status; unknown errors are a logged 500. */
export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    if (err instanceof DomainError) {
      ctx.status = STATUS_BY_CODE[err.code];
      ctx.body = { error: err.message, code: err.code, ...(err.details !== undefined ? { details: err.details } : {}) };
      if (err.headers) ctx.set(err.headers);
      return;
    }
    if (err instanceof ZodError) {
      const { message, details } = formatZodError(err, 'request');
      ctx.status = 400;
      ctx.body = { error: message, code: 'validation', details };
      return;
    }
    if (err instanceof UniqueConstraintViolationException) {
      ctx.status = 409;
      ctx.body = { error: 'a record with the same unique value already exists', code: 'conflict' };
      return;
    }
    const httpErr = err as HttpishError;
    const status = httpErr.status ?? httpErr.statusCode;
    if (status && status >= 400 && status < 500) {
      ctx.status = status;
      ctx.body = { error: clientMessage(status, httpErr), code: status === 413 ? 'too_large' : 'http' };
      if (httpErr.headers) ctx.set(httpErr.headers);
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
  if (status === 400 && (err.type === 'entity.parse.failed' || err instanceof SyntaxError)) return 'malformed JSON body';
  if (status === 415) return /content-encoding/i.test(err.message ?? '') ? `${err.message}; send gzip, deflate, br or an uncompressed body` : 'unsupported content type; send application/json';
  if (status === 405) return err.message || 'method not allowed';
  return err.expose && err.message ? err.message : 'bad request';
}
