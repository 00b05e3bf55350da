import type { MikroORM } from '@mikro-orm/postgresql';

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
