/**
 * Recording why a trigger evaluation started no run (issue 27). Where the decision is taken in a
 * transaction (createRoots) its skips are one statement of that transaction; where it is not (the
 * outbox subscriber's trigger matching, the webhook intake) they go through a group commit, so a
 * burst of skips is a few multi-row inserts, never one round trip per call.
 */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { newId } from '../../../platform/ids';
import { groupCommit } from '../../../platform/intake/group-commit';
import { leanQuery } from '../../../platform/orm/lean';
import type { SkipReason } from './skip.entity';
import type { StartRequest } from './start-types';

export interface SkipRecord {
  workspaceId: string;
  automationId: string;
  triggerType: string;
  triggerKey?: string | null;
  entityType?: string | null;
  entityId?: string | null;
  reason: SkipReason;
  message: string;
  details?: Record<string, unknown>;
  at?: Date;
}

/** The start's identity on a skip row (issue 27): the request's, under the automation it was checked against. */
export const skipIdentity = (req: StartRequest, automationId = req.automationId) => ({
  workspaceId: req.workspaceId,
  automationId,
  triggerType: req.triggerType,
  triggerKey: req.triggerKey,
  entityType: req.entityType ?? null,
  entityId: req.entityId ?? null,
});

/** Kept this long; the worker's housekeeping deletes older rows. */
export const SKIP_RETENTION_DAYS = 14;

const SECRET_KEY = /secret|token|password|passwd|credential|api[-_]?key|authorization/i;
const MAX_STRING = 200;
const MAX_ITEMS = 20;
const MAX_KEYS = 20;
const MAX_DEPTH = 3;
/** A details object longer than this (as JSON) is replaced by a note saying so. */
export const MAX_DETAILS_CHARS = 4000;

function bound(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (value instanceof Date) return value.toISOString();
  if (depth >= MAX_DEPTH)
    return Array.isArray(value) ? `[${value.length} items]` : typeof value === 'object' ? '{…}' : null;
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((v) => bound(v, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>).slice(0, MAX_KEYS)) {
      // Trigger configs may hold secrets (webhook secret, credentials): never copied into a skip.
      out[k] = SECRET_KEY.test(k) ? '[redacted]' : bound(v, depth + 1);
    }
    return out;
  }
  return null;
}

/** The decisive values, bounded in depth, width and size, with secret-looking keys redacted. */
export function boundDetails(details: Record<string, unknown> | undefined): Record<string, unknown> {
  const out = (bound(details ?? {}, 0) ?? {}) as Record<string, unknown>;
  const json = JSON.stringify(out);
  return json.length > MAX_DETAILS_CHARS ? { truncated: true, keys: Object.keys(out).slice(0, MAX_KEYS) } : out;
}

const INSERT = `insert into automation_skip (id, workspace_id, created_at, updated_at, automation_id, trigger_type,
    trigger_key, entity_type, entity_id, reason, message, details)
  select r.id, r.workspace_id, r.at, r.at, r.automation_id, r.trigger_type, r.trigger_key, r.entity_type, r.entity_id,
      r.reason, r.message, coalesce(r.details, '{}'::jsonb)
    from jsonb_to_recordset($1::jsonb) as r(id varchar, workspace_id varchar, at timestamptz, automation_id varchar,
      trigger_type varchar, trigger_key varchar, entity_type varchar, entity_id varchar, reason varchar,
      message varchar, details jsonb)`;

function rowOf(s: SkipRecord): Record<string, unknown> {
  const at = s.at ?? new Date();
  return {
    id: newId(at),
    workspace_id: s.workspaceId,
    at: at.toISOString(),
    automation_id: s.automationId,
    trigger_type: s.triggerType.slice(0, 60),
    trigger_key: s.triggerKey ? s.triggerKey.slice(0, 100) : null,
    entity_type: s.entityType ? s.entityType.slice(0, 40) : null,
    entity_id: s.entityId ? s.entityId.slice(0, 64) : null,
    reason: s.reason,
    message: s.message.slice(0, 300),
    details: boundDetails(s.details),
  };
}

/** All skips in one statement; inside the caller's transaction when `em` has one open. */
export async function insertSkips(em: EntityManager, skips: readonly SkipRecord[]): Promise<void> {
  if (!skips.length) return;
  await leanQuery(em, INSERT, [JSON.stringify(skips.map(rowOf))]);
}

const recorders = new WeakMap<MikroORM, (s: SkipRecord) => Promise<void>>();

/** Records one skip together with the others arriving at the same time (one insert per batch). */
export function recordSkip(orm: MikroORM, skip: SkipRecord): Promise<void> {
  let submit = recorders.get(orm);
  if (!submit) {
    submit = groupCommit(
      async (items: SkipRecord[]) => {
        await insertSkips(orm.em.fork({ clear: true, useContext: false }), items);
        return items.map(() => undefined);
      },
      { maxBatch: 200, maxInFlight: 1 },
    );
    recorders.set(orm, submit);
  }
  return submit(skip);
}

/**
 * Deletes skips older than the retention by id range (ids start with their creation second), in
 * small batches so no delete holds locks for long. Returns the number deleted.
 */
export async function pruneSkips(
  em: EntityManager,
  retentionDays = SKIP_RETENTION_DAYS,
  batch = 1000,
): Promise<number> {
  const cutoff = `${Math.floor((Date.now() - retentionDays * 86_400_000) / 1000)
    .toString(16)
    .padStart(8, '0')}0000000000000000`;
  let total = 0;
  for (;;) {
    const res = await em
      .getConnection()
      .execute(
        `delete from automation_skip where id in (select id from automation_skip where id < ? order by id limit ?)`,
        [cutoff, Math.max(1, Math.floor(batch))],
        'run',
      );
    const n = (res as { affectedRows?: number }).affectedRows ?? 0;
    total += n;
    if (n < batch) return total;
  }
}
