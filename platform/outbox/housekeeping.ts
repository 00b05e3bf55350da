import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Deletes processed outbox rows older than the retention, in chunks so a large backlog never
 * holds one long delete. Unprocessed rows are never deleted, however old.
 */
export async function pruneProcessedOutboxEvents(em: EntityManager, retentionDays = 7, chunk = 5000): Promise<number> {
  const days = Math.max(0, Math.floor(retentionDays));
  const size = Math.max(1, Math.floor(chunk));
  let total = 0;
  for (;;) {
    const res = await em.getConnection().execute(
      `delete from outbox_event where id in (
         select id from outbox_event where processed_at < now() - interval '${days} days' order by id limit ${size})`,
      [],
      'run',
    );
    const affected = (res as { affectedRows?: number }).affectedRows ?? 0;
    total += affected;
    if (affected < size) return total;
  }
}
