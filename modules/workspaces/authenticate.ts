import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor, Role, Scope } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import { leanQuery } from '../../platform/orm/lean';
import { hashKey, KEY_PREFIX } from './api-keys.service';
import type { KeyCache } from './key-cache';
import { rateLimitState, rateWindows, type RateLimitState } from './rate-limit.service';

interface KeyRow {
  id: string;
  workspace_id: string;
  user_id: string;
  prefix: string;
  scopes: Scope[];
  role: Role;
  revoked_at: Date | null;
  workspace_status: string;
  workspace_name: string;
}

export interface Authenticated extends Actor {
  keyId: string;
  keyPrefix: string;
  workspaceName: string;
}

const KEY_COLUMNS = `k.id, k.workspace_id, k.user_id, k.prefix, k.scopes, k.role, k.revoked_at,
            w.status as workspace_status, w.name as workspace_name`;

function checkKey(key: string | undefined): string {
  if (!key) throw new DomainError('unauthenticated', 'missing API key: send "Authorization: Bearer sb_…" or ?api_key=');
  if (!key.startsWith(KEY_PREFIX)) throw new DomainError('unauthenticated', 'invalid API key');
  return hashKey(key);
}

/** 401 for an unknown key; 403 for a revoked key or a suspended workspace. */
function toActor(row: KeyRow | undefined): Authenticated {
  if (!row) throw new DomainError('unauthenticated', 'invalid API key');
  if (row.revoked_at) throw new DomainError('forbidden', 'API key has been revoked');
  if (row.workspace_status !== 'active') throw new DomainError('forbidden', 'workspace is suspended');
  return {
    workspaceId: row.workspace_id,
    userId: row.user_id,
    role: row.role,
    scopes: row.scopes,
    keyId: row.id,
    keyPrefix: row.prefix,
    workspaceName: row.workspace_name,
  };
}

// Per process: a busy key costs one last_used_at write per minute, not a statement per request.
// The SQL condition keeps several processes from writing more than about once a minute too.
const lastUsedWritten = new Map<string, number>();
const LAST_USED_EVERY_MS = 60_000;

function touchLastUsed(em: EntityManager, keyId: string, nowMs = Date.now()): void {
  const last = lastUsedWritten.get(keyId);
  if (last !== undefined && nowMs - last < LAST_USED_EVERY_MS) return;
  if (lastUsedWritten.size >= 10_000) {
    for (const [id, at] of lastUsedWritten) if (nowMs - at >= LAST_USED_EVERY_MS) lastUsedWritten.delete(id);
  }
  lastUsedWritten.set(keyId, nowMs);
  leanQuery(
    em,
    `update api_key set last_used_at = now() where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
    [keyId],
  ).catch(() => lastUsedWritten.delete(keyId));
}

/** 401 for a missing or unknown key; 403 for a revoked key or a suspended workspace. Counts nothing. */
export async function authenticateKey(em: EntityManager, key: string | undefined): Promise<Authenticated> {
  const hash = checkKey(key);
  const rows = await em
    .getConnection()
    .execute<KeyRow[]>(
      `select ${KEY_COLUMNS} from api_key k join workspace w on w.id = k.workspace_id where k.hash = ?`,
      [hash],
    );
  const actor = toActor(rows[0]);
  touchLastUsed(em, actor.keyId);
  return actor;
}

const AUTHENTICATE_AND_COUNT = `with k as (
       select ${KEY_COLUMNS} from api_key k join workspace w on w.id = k.workspace_id where k.hash = $1
     ), counted as (
       insert into rate_limit_window (key_id, kind, window_start, count)
       select k.id, v.kind, v.window_start, 1
         from k cross join (values ('m', $2::timestamptz), ('d', $3::timestamptz)) as v(kind, window_start)
        where k.revoked_at is null and k.workspace_status = 'active'
       on conflict (key_id, kind, window_start) do update set count = rate_limit_window.count + 1
       returning kind, count
     )
     select k.*,
            (select count from counted where kind = 'm') as minute_count,
            (select count from counted where kind = 'd') as day_count
       from k`;

// A cached key only needs its count: the two windows' upsert, prepared per connection.
const COUNT = `insert into rate_limit_window (key_id, kind, window_start, count)
     values ($1, 'm', $2::timestamptz, 1), ($1, 'd', $3::timestamptz, 1)
     on conflict (key_id, kind, window_start) do update set count = rate_limit_window.count + 1
     returning kind, count`;

export type ActorCache = KeyCache<Authenticated>;

// The windows' bounds as sent to Postgres, computed once per minute (a UTC day starts on a minute).
let windowsOf: { minute: number; minuteStart: string; dayStart: string } | undefined;
function windowBounds(now: Date): { minuteStart: string; dayStart: string } {
  const minute = Math.floor(now.getTime() / 60_000);
  if (windowsOf?.minute !== minute) {
    const { minuteStart, dayStart } = rateWindows(now);
    windowsOf = { minute, minuteStart: minuteStart.toISOString(), dayStart: dayStart.toISOString() };
  }
  return windowsOf;
}

/**
 * Authentication and rate-limit counting in one round trip: the key lookup and the upsert of the
 * minute and day windows are one statement, so every API process still shares the count in
 * Postgres. Only a usable key (not revoked, workspace active) is counted, as before. With a cache
 * (emptied by NOTIFY on every grant change, see key-cache.ts) a known key costs only the count.
 */
export async function authenticateAndCount(
  em: EntityManager,
  key: string | undefined,
  limits: { perMinute: number; perDay: number },
  now = new Date(),
  cache?: ActorCache,
): Promise<{ actor: Authenticated; rate: RateLimitState }> {
  const hash = checkKey(key);
  // ISO strings: pg's Date formatting (local time zone) costs more than toISOString.
  const { minuteStart, dayStart } = windowBounds(now);
  const cached = cache?.get(hash, now.getTime());
  if (cached) {
    const counts = await leanQuery<{ kind: string; count: number }>(
      em,
      COUNT,
      [cached.keyId, minuteStart, dayStart],
      'rate_limit_count',
    );
    touchLastUsed(em, cached.keyId);
    const minute = counts.find((r) => r.kind.trim() === 'm')?.count ?? 0;
    const day = counts.find((r) => r.kind.trim() === 'd')?.count ?? 0;
    return { actor: cached, rate: rateLimitState({ minute, day }, limits, now) };
  }
  const generation = cache?.generation ?? 0;
  // Prepared once per pooled connection; no ORM on this path (domain/orm/lean.ts).
  const rows = await leanQuery<KeyRow & { minute_count: number | null; day_count: number | null }>(
    em,
    AUTHENTICATE_AND_COUNT,
    [hash, minuteStart, dayStart],
    'authenticate_and_count',
  );
  const actor = toActor(rows[0]);
  // Shared by the requests that hit the cache: frozen so that none can change another's actor.
  if (cache)
    cache.set(
      hash,
      Object.freeze({ ...actor, scopes: Object.freeze([...actor.scopes]) as Scope[] }),
      generation,
      now.getTime(),
    );
  touchLastUsed(em, actor.keyId);
  const row = rows[0]!;
  return { actor, rate: rateLimitState({ minute: row.minute_count ?? 0, day: row.day_count ?? 0 }, limits, now) };
}
