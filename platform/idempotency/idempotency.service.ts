/**
 * Idempotency keys (Stripe semantics) for POSTs: a row per workspace + key is the lock while the
 * first request runs (inserted with ON CONFLICT, so two racing requests cannot both win) and then
 * holds its response for 24 hours.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../ids';
import { executeLean } from '../orm/lean';

export const IDEMPOTENCY_TTL_HOURS = 24;
/** An in-progress row older than this was left by a crashed process; a retry may take it over. */
export const IDEMPOTENCY_LOCK_MINUTES = 5;
/** 1–255 printable ASCII characters (space to tilde). */
export const IDEMPOTENCY_KEY_RE = /^[\x20-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type Claim =
  | { kind: 'owner'; lockId: string }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in_progress' }
  | { kind: 'mismatch' };

/** Canonical JSON: object keys sorted at every level, so `{a,b}` and `{b,a}` hash alike. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** What makes two requests "the same": method, path, query (sorted) and canonical body. */
export function requestHash(method: string, path: string, query: Record<string, unknown>, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(query)}\n${canonicalJson(body)}`, 'utf8')
    .digest('hex');
}

interface Row {
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  response_headers: Record<string, string> | null;
}

/**
 * Claims the key for this request, or says what the earlier request with it left: its stored
 * response, "still running" or "a different request". Expired rows and stale locks are taken over.
 */
export async function claimIdempotencyKey(
  em: EntityManager,
  workspaceId: string,
  key: string,
  hash: string,
): Promise<Claim> {
  const conn = em.getConnection();
  for (let attempt = 0; attempt < 3; attempt++) {
    const lockId = newId();
    const claimed = await conn.execute<{ lock_id: string }[]>(
      `insert into idempotency_key (workspace_id, key, request_hash, state, lock_id, created_at) values (?, ?, ?, 'in_progress', ?, now())
       on conflict (workspace_id, key) do update
         set request_hash = excluded.request_hash, state = 'in_progress', lock_id = excluded.lock_id, response_status = null,
             response_body = null, response_headers = null, created_at = now(), completed_at = null
         where idempotency_key.created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'
            or (idempotency_key.state = 'in_progress' and idempotency_key.created_at < now() - interval '${IDEMPOTENCY_LOCK_MINUTES} minutes')
       returning lock_id`,
      [workspaceId, key, hash, lockId],
    );
    if (claimed.length) return { kind: 'owner', lockId };
    const rows = await conn.execute<Row[]>(
      `select request_hash, state, response_status, response_body, response_headers from idempotency_key where workspace_id = ? and key = ?`,
      [workspaceId, key],
    );
    const row = rows[0];
    if (!row) continue; // released (5xx) between the two statements: claim again
    if (row.request_hash.trim() !== hash) return { kind: 'mismatch' };
    if (row.state !== 'completed' || row.response_status === null) return { kind: 'in_progress' };
    return {
      kind: 'replay',
      response: { status: row.response_status, body: row.response_body ?? '', headers: row.response_headers ?? {} },
    };
  }
  return { kind: 'in_progress' };
}

/** Stores the first response; a no-op when the lock was taken over meanwhile (lock id changed). */
export async function completeIdempotencyKey(
  em: EntityManager,
  workspaceId: string,
  key: string,
  lockId: string,
  response: StoredResponse,
): Promise<void> {
  // The stored body as a bind parameter (executeLean): the ORM's execute would escape it into the SQL text.
  await executeLean(
    em,
    `update idempotency_key set state = 'completed', response_status = ?, response_body = ?, response_headers = ?::jsonb, completed_at = now()
     where workspace_id = ? and key = ? and lock_id = ?`,
    [response.status, response.body, JSON.stringify(response.headers), workspaceId, key, lockId],
  );
}

/** Frees the key after a server-side failure (5xx) or an unstorable response, so a retry runs again. */
export async function releaseIdempotencyKey(
  em: EntityManager,
  workspaceId: string,
  key: string,
  lockId: string,
): Promise<void> {
  await em
    .getConnection()
    .execute(
      `delete from idempotency_key where workspace_id = ? and key = ? and lock_id = ?`,
      [workspaceId, key, lockId],
      'run',
    );
}

/** Housekeeping for the worker: deletes expired keys in chunks (same pattern as the outbox prune). */
export async function pruneIdempotencyKeys(em: EntityManager, chunk = 5000): Promise<number> {
  const size = Math.max(1, Math.floor(chunk));
  let total = 0;
  for (;;) {
    const res = await em.getConnection().execute(
      `delete from idempotency_key where (workspace_id, key) in (
         select workspace_id, key from idempotency_key where created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours' order by created_at limit ${size})`,
      [],
      'run',
    );
    const affected = (res as { affectedRows?: number }).affectedRows ?? 0;
    total += affected;
    if (affected < size) return total;
  }
}
