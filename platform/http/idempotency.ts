/**
 * `Idempotency-Key` on authenticated POSTs (Stripe semantics): the first response (status, body,
 * Content-Type/Location and the handler's own headers) is stored per workspace + key for 24 h and
 * replayed to a retry of the same request with `Idempotent-Replayed: true`; the same key with a
 * different request is 422 `idempotency_mismatch`, with one still running 409 `idempotency_in_progress`.
 * 4xx answers are stored like successes; a 5xx or 429 releases the key so the retry runs again.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../errors';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  IDEMPOTENCY_KEY_RE,
  releaseIdempotencyKey,
  requestHash,
  type StoredResponse,
} from '../idempotency/idempotency.service';
import { newId } from '../ids';
import { renderError } from './errors';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Larger answers (exports, big imports) are not kept: the key is released after them. */
const MAX_STORED_BODY = 1024 * 1024;
const STORED_HEADERS = ['content-type', 'location', 'content-disposition'];

/** The key of a POST that carries one (validated), or undefined when the request has none. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  if (ctx.method !== 'POST') return undefined;
  const raw = ctx.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw.join(', ') : raw;
  if (!IDEMPOTENCY_KEY_RE.test(key)) {
    throw new DomainError('validation', 'Idempotency-Key header: must be 1–255 printable ASCII characters', [
      { path: 'Idempotency-Key', error: 'must be 1-255 printable ASCII characters' },
    ]);
  }
  return key;
}

/** How a route whose command goes to the workflow engine (with engineCommandId) answers when the engine is slow. */
export const ENGINE_UNCONFIRMED_NOTE =
  '503 unavailable (Retry-After) when the workflow engine does not confirm within ENGINE_DEADLINE_MS: details.recorded says whether it takes effect once the worker runs; a retry with the same Idempotency-Key returns the outcome.';

/**
 * The id of a command sent to the workflow engine (update id, signal dedupe key): derived from the
 * Idempotency-Key, so a retry of a request the engine recorded but did not confirm is the same
 * command (applied once, answered with its outcome); a fresh id without a key.
 */
export function engineCommandId(ctx: Context, workspaceId: string): string {
  return requestKeyOf(ctx, workspaceId) ?? newId();
}

/**
 * The request's own id from its Idempotency-Key (workspace, method, path, key; 40 hex), for rows a
 * write records with it so that a retry whose stored answer was lost still finds them; undefined without a key.
 */
export function requestKeyOf(ctx: Context, workspaceId: string): string | undefined {
  const key = idempotencyKeyOf(ctx);
  if (key === undefined) return undefined;
  return createHash('sha256')
    .update(`${workspaceId}\n${ctx.method} ${ctx.path}\n${key}`, 'utf8')
    .digest('hex')
    .slice(0, 40);
}

function storable(ctx: Context, extraHeaders: readonly string[]): StoredResponse | null {
  const body: unknown = ctx.body;
  let text: string;
  if (body === undefined || body === null) text = '';
  else if (typeof body === 'string') text = body;
  else if (Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return null;
  else text = JSON.stringify(body);
  if (text.length > MAX_STORED_BODY) return null;
  const headers: Record<string, string> = {};
  for (const name of [...STORED_HEADERS, ...extraHeaders.map((h) => h.toLowerCase())]) {
    const value = ctx.response.get(name);
    if (value) headers[name] = String(value);
  }
  return { status: ctx.status, body: text, headers };
}

/**
 * Runs `run` (validation + handler) at most once per workspace + key. `run` sets ctx.status/body
 * and reports the header names the handler set, so they are stored with the response.
 */
export async function withIdempotency(
  ctx: Context,
  em: EntityManager,
  workspaceId: string,
  key: string,
  run: () => Promise<readonly string[]>,
): Promise<void> {
  const { api_key: _apiKey, ...query } = ctx.query as Record<string, unknown>;
  const hash = requestHash(ctx.method, ctx.path, query, ctx.request.body);
  const claim = await claimIdempotencyKey(em, workspaceId, key, hash);
  if (claim.kind === 'mismatch') {
    throw new DomainError(
      'idempotency_mismatch',
      'Idempotency-Key was already used for a different request (method, path, query or body differ); use a new key',
    );
  }
  if (claim.kind === 'in_progress') {
    throw new DomainError(
      'idempotency_in_progress',
      'a request with this Idempotency-Key is still being processed; retry shortly',
      undefined,
      { 'Retry-After': '1' },
    );
  }
  if (claim.kind === 'replay') {
    const { status, body, headers } = claim.response;
    ctx.status = status;
    ctx.set(headers);
    ctx.set(REPLAYED_HEADER, 'true');
    ctx.body = body === '' ? null : body;
    ctx.status = status; // setting a null body resets the status to 204
    return;
  }
  const { lockId } = claim;
  const release = () =>
    releaseIdempotencyKey(em, workspaceId, key, lockId).catch((err: unknown) =>
      ctx.state.log?.warn({ err, requestId: ctx.state.requestId }, 'idempotency key release failed'),
    );
  let handlerHeaders: readonly string[];
  try {
    handlerHeaders = await run();
  } catch (err) {
    const rendered = renderError(err);
    // 429 (back-pressure) says "later", not an outcome: released like a 5xx, so the retry runs again.
    if (rendered && rendered.status < 500 && rendered.status !== 429) {
      await store(
        ctx,
        em,
        workspaceId,
        key,
        lockId,
        {
          status: rendered.status,
          body: JSON.stringify(rendered.body),
          headers: { 'content-type': 'application/json; charset=utf-8', ...lower(rendered.headers) },
        },
        release,
      );
    } else {
      await release();
    }
    throw err;
  }
  const response = ctx.status < 500 ? storable(ctx, handlerHeaders) : null;
  if (response) await store(ctx, em, workspaceId, key, lockId, response, release);
  else await release();
}

const lower = (headers: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));

async function store(
  ctx: Context,
  em: EntityManager,
  workspaceId: string,
  key: string,
  lockId: string,
  response: StoredResponse,
  release: () => Promise<unknown>,
): Promise<void> {
  try {
    await completeIdempotencyKey(em, workspaceId, key, lockId, response);
  } catch (err) {
    // The write itself succeeded; without a stored answer the key must not stay locked.
    ctx.state.log?.warn({ err, requestId: ctx.state.requestId }, 'idempotency response not stored');
    await release();
  }
}
