import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import { z } from 'zod';
import type { Ctx } from '../../platform/context';
import { newId } from '../../platform/ids';
import { EVENT_CATALOG, isEventName } from '../../app/event-catalog';
import { emit, type DomainEventInput } from '../../platform/outbox/emit';

export interface StoredEvent {
  type: string;
  entity_type: string;
  entity_id: string;
  payload: Record<string, any>;
}

/**
 * Throws unless each stored event is declared in the event catalog and its payload parses with the
 * declared schema: every HTTP test that reads events also checks the catalog against what the code emits.
 */
export function assertCatalogued(events: readonly Pick<StoredEvent, 'type' | 'payload'>[]): void {
  for (const e of events) {
    if (!isEventName(e.type)) throw new Error(`outbox event ${e.type} is not declared (no module's *.events.ts)`);
    const parsed = (EVENT_CATALOG[e.type] as z.ZodType).safeParse(e.payload);
    if (!parsed.success)
      throw new Error(
        `outbox event ${e.type}: payload does not match its declared schema\n${z.prettifyError(parsed.error)}`,
      );
  }
}

/** Outbox rows written for one entity, oldest first (each checked against the event catalog). */
export async function eventsFor(orm: MikroORM, entityId: string): Promise<StoredEvent[]> {
  const events = await orm.em
    .fork()
    .getConnection()
    .execute<StoredEvent[]>(
      'select type, entity_type, entity_id, payload from outbox_event where entity_id = ? order by id',
      [entityId],
    );
  assertCatalogued(events);
  return events;
}

/**
 * Marks the workspace's outbox events (those whose type matches the LIKE pattern `types`, by default all)
 * undelivered again, as after a dispatcher crash between delivering and recording it: the next drain
 * delivers the same events (same ids) once more.
 */
export async function redeliverEvents(orm: MikroORM, workspaceId: string, types = '%'): Promise<void> {
  await orm.em
    .fork()
    .getConnection()
    .execute(
      `update outbox_event set processed_at = null, delivered_to = '{}' where workspace_id = ? and type like ?`,
      [workspaceId, types],
    );
}

/** A failed parked delivery of a made-up event (admin endpoint and tenant-isolation factory). */
export async function insertParkedDelivery(
  orm: MikroORM,
  workspaceId: string,
  over: { subscriber?: string; status?: 'pending' | 'failed' | 'dropped'; attempts?: number } = {},
): Promise<string> {
  const id = newId();
  await orm.em
    .fork()
    .getConnection()
    .execute(
      `insert into outbox_delivery (id, workspace_id, subscriber, outbox_id, event_id, type, entity_type, entity_id,
         payload, occurred_at, status, attempts, last_error, last_attempt_at)
       values (?, ?, ?, 0, ?, 'booking_created', 'booking', ?, '{}', now(), ?, ?, '550 Mailbox unavailable', now())`,
      [
        id,
        workspaceId,
        over.subscriber ?? 'booking-notifications',
        newId(),
        newId(),
        over.status ?? 'failed',
        over.attempts ?? 1,
      ],
    );
  return id;
}

/** An outbox_delivery row (a delivery parked for its retry) as the tests read it. */
export interface ParkedDelivery {
  id: string;
  subscriber: string;
  type: string;
  entity_id: string;
  status: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date;
  locked_by: string | null;
}

/** The workspace's parked deliveries, by event then subscriber; `subscriber` and `entityIds` narrow them. */
export async function parkedDeliveries(
  db: Pool,
  workspaceId: string,
  only: { subscriber?: string; entityIds?: string[] } = {},
): Promise<ParkedDelivery[]> {
  const values: unknown[] = [workspaceId];
  let where = 'workspace_id = $1';
  if (only.subscriber !== undefined) where += ` and subscriber = $${values.push(only.subscriber)}`;
  if (only.entityIds) where += ` and entity_id = any($${values.push(only.entityIds)}::text[])`;
  const res = await db.query<ParkedDelivery>(
    `select id, subscriber, type, entity_id, status, attempts, last_error, next_attempt_at, locked_by
     from outbox_delivery where ${where} order by outbox_id, subscriber`,
    values,
  );
  return res.rows;
}

/** An outbox event as dispatcher and subscriber tests write it: any name, any payload. */
export interface UndeclaredEvent {
  type: string;
  entityType: string;
  entityId: string;
  payload: Record<string, unknown>;
}

/**
 * Writes an event that need not be declared in the catalog (made-up names such as `poison`,
 * payloads that carry only test markers): the row emit() writes, its types bypassed on purpose.
 * Production code has no such door: emit() takes declared names only.
 */
export function emitUndeclared(ctx: Ctx, event: UndeclaredEvent): void {
  emit(ctx, event as unknown as DomainEventInput);
}
