/**
 * Operators' view of parked outbox deliveries (outbox_delivery, see deliveries.ts): list, retry,
 * drop. Raw SQL like the dispatcher; every statement is scoped to the caller's workspace, or to none
 * for the operator CLI (`workspaceId: null`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, notFound } from '../errors';
import { ID_RE } from '../ids';
import { OUTBOX_CHANNEL, PARKED_DUE_PAYLOAD } from './listener';
import type { DeliveryState, ListOutboxDeliveriesQuery, OutboxDeliveryView } from './admin.schemas';

interface Row {
  id: string;
  workspace_id: string;
  subscriber: string;
  event_id: string;
  type: string;
  entity_type: string;
  entity_id: string;
  occurred_at: Date;
  status: 'pending' | 'failed' | 'dropped';
  attempts: number;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date;
  locked_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What a state means in stored columns (see DELIVERY_STATES). */
const STATE_SQL: Record<DeliveryState, string> = {
  queued: `status = 'pending' and attempts = 0`,
  failing: `status = 'pending' and attempts > 0`,
  failed: `status = 'failed'`,
  dropped: `status = 'dropped'`,
};

/** Raw timestamps may come back as Date or string depending on the driver's type parsers. */
const iso = (d: Date | string): string => new Date(d).toISOString();

const stateOf = (r: Row): DeliveryState =>
  r.status === 'pending' ? (r.attempts > 0 ? 'failing' : 'queued') : r.status;

export function serializeDelivery(r: Row): OutboxDeliveryView & { workspaceId: string } {
  const state = stateOf(r);
  return {
    _id: r.id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    workspaceId: r.workspace_id,
    subscriber: r.subscriber,
    eventId: r.event_id,
    eventType: r.type,
    entityType: r.entity_type,
    entityId: r.entity_id,
    occurredAt: iso(r.occurred_at),
    status: state,
    attempts: r.attempts,
    lastError: r.last_error,
    lastAttemptAt: r.last_attempt_at ? iso(r.last_attempt_at) : null,
    nextAttemptAt: r.status === 'pending' ? iso(r.next_attempt_at) : null,
  };
}

const COLUMNS = `id, workspace_id, subscriber, event_id, type, entity_type, entity_id, occurred_at, status, attempts,
  last_error, last_attempt_at, next_attempt_at, locked_until, created_at, updated_at`;

/** Parked deliveries, newest first; `workspaceId` null lists every workspace's (operator CLI). */
export async function listDeliveries(
  em: EntityManager,
  workspaceId: string | null,
  query: ListOutboxDeliveriesQuery,
): Promise<{ items: Row[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (workspaceId !== null) {
    where.push('workspace_id = ?');
    params.push(workspaceId);
  }
  if (query.subscriber) {
    where.push('subscriber = ?');
    params.push(query.subscriber);
  }
  if (query.status) where.push(STATE_SQL[query.status]);
  const clause = where.length ? `where ${where.join(' and ')}` : '';
  const conn = em.getConnection();
  const [items, [count]] = await Promise.all([
    conn.execute<Row[]>(
      `select ${COLUMNS} from outbox_delivery ${clause} order by created_at desc, id desc limit ? offset ?`,
      [...params, query.limit, (query.page - 1) * query.limit],
    ),
    conn.execute<{ n: number }[]>(`select count(*)::int as n from outbox_delivery ${clause}`, params),
  ]);
  return { items, total: count?.n ?? 0 };
}

export async function getDelivery(em: EntityManager, workspaceId: string | null, id: string): Promise<Row> {
  if (!ID_RE.test(id)) throw notFound('outbox delivery');
  const rows = await em
    .getConnection()
    .execute<Row[]>(
      `select ${COLUMNS} from outbox_delivery where id = ? ${workspaceId !== null ? 'and workspace_id = ?' : ''}`,
      workspaceId !== null ? [id, workspaceId] : [id],
    );
  if (!rows[0]) throw notFound('outbox delivery');
  return rows[0];
}

/**
 * Due again now with a fresh schedule (attempts 0; the last error stays for reference). Not while a
 * dispatcher is delivering it (409): its outcome comes first. The statement's NOTIFY (sent when it
 * commits) wakes the dispatchers' parked-delivery runners, so the attempt does not wait for a poll.
 */
export async function retryDelivery(em: EntityManager, workspaceId: string | null, id: string): Promise<Row> {
  await getDelivery(em, workspaceId, id);
  const rows = await em.getConnection().execute<Row[]>(
    `with u as (
       update outbox_delivery set status = 'pending', attempts = 0, next_attempt_at = now(), locked_by = null,
         locked_until = null, updated_at = now()
       where id = ? and (status <> 'pending' or locked_until is null or locked_until <= now())
       returning ${COLUMNS})
     select u.*, pg_notify('${OUTBOX_CHANNEL}', '${PARKED_DUE_PAYLOAD}') as notified from u`,
    [id],
  );
  if (!rows[0]) throw conflict('the delivery is being attempted right now; look again in a moment');
  return rows[0];
}

/** Dropped for good: never attempted again; later deliveries of its record for this subscriber go on. */
export async function dropDelivery(em: EntityManager, workspaceId: string | null, id: string): Promise<Row> {
  await getDelivery(em, workspaceId, id);
  const rows = await em.getConnection().execute<Row[]>(
    `update outbox_delivery set status = 'dropped', locked_by = null, locked_until = null, updated_at = now()
     where id = ? and (status <> 'pending' or locked_until is null or locked_until <= now())
     returning ${COLUMNS}`,
    [id],
  );
  if (!rows[0]) throw conflict('the delivery is being attempted right now; look again in a moment');
  return rows[0];
}
