import type { MikroORM } from '@mikro-orm/postgresql';
import { newId } from '../../domain/ids';

export interface StoredEvent {
  type: string;
  entity_type: string;
  entity_id: string;
  payload: Record<string, any>;
}

/** Outbox rows written for one entity, oldest first. */
export async function eventsFor(orm: MikroORM, entityId: string): Promise<StoredEvent[]> {
  return orm.em
    .fork()
    .getConnection()
    .execute<StoredEvent[]>(
      'select type, entity_type, entity_id, payload from outbox_event where entity_id = ? order by id',
      [entityId],
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
