/**
 * `sendSettings.emailIntervalSeconds`: the minimum spacing between e-mails from one mailbox, over
 * every enrollment of the workspace. Each send reserves the mailbox's next free slot with one
 * upsert (race-free under concurrent steps); a slot in the future defers the step until then.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** The instant this send may go out; moves the mailbox's next free slot on by `intervalSeconds`. */
export async function reserveSendSlot(
  em: EntityManager,
  workspaceId: string,
  mailbox: string,
  intervalSeconds: number,
): Promise<Date> {
  const rows: { slot: Date | string }[] = await em.execute(
    `insert into email_send_slot (workspace_id, mailbox, next_at) values (?, ?, now() + (? * interval '1 second'))
     on conflict (workspace_id, mailbox) do update set next_at = greatest(email_send_slot.next_at, now()) + (? * interval '1 second')
     returning next_at - (? * interval '1 second') as slot`,
    [workspaceId, mailbox, intervalSeconds, intervalSeconds, intervalSeconds],
  );
  return new Date(rows[0]!.slot);
}
