import type { OutboxEventRecord } from './subscriber';

/**
 * The claim, one statement in its own transaction. An event is claimable when it is due, not
 * leased (or its lease expired after a crash), and no earlier event of the same record is still
 * unprocessed, so a record's events go out one at a time in id order and a failing event holds
 * back only its own record. SKIP LOCKED lets concurrent dispatchers claim disjoint rows; the
 * lease (locked_by/locked_until) keeps them disjoint after the claim commits.
 * The order check is a scalar subquery with LIMIT 1, not NOT EXISTS: an anti-join may be planned
 * as a scan of every unprocessed row per candidate when the statistics predate a burst (no
 * unprocessed rows when last analysed), O(backlog²); the subquery always probes
 * outbox_event_pending_record_index for one record.
 * `queued_for` names the subscribers that still have an earlier delivery of this record parked
 * (outbox_delivery, pending): the event queues behind it for them instead of being handed over.
 * Params: $1 dispatcher id, $2 lease ms, $3 batch size, [$4 workspace ids].
 */
export function claimSql(filterWorkspaces: boolean): string {
  return `
    with claimable as (
      select o.id from outbox_event o
      where o.processed_at is null
        and o.available_at <= now()
        and (o.locked_until is null or o.locked_until <= now())
        ${filterWorkspaces ? 'and o.workspace_id = any($4::text[])' : ''}
        and (
          select e2.id from outbox_event e2
          where e2.processed_at is null and e2.workspace_id = o.workspace_id
            and e2.entity_type = o.entity_type and e2.entity_id = o.entity_id and e2.id < o.id
          limit 1) is null
      order by o.id
      limit $3
      for update skip locked
    )
    update outbox_event u
    set locked_by = $1, locked_until = now() + $2::double precision * interval '1 millisecond', attempts = u.attempts + 1
    from claimable where u.id = claimable.id
    returning u.id, u.event_id, u.workspace_id, u.type, u.entity_type, u.entity_id, u.actor_user_id,
      u.payload, u.occurred_at, u.attempts, u.delivered_to,
      (select array_agg(distinct d.subscriber) from outbox_delivery d
        where d.status = 'pending' and d.workspace_id = u.workspace_id
          and d.entity_type = u.entity_type and d.entity_id = u.entity_id) as queued_for`;
}

export interface OutboxRow {
  id: string;
  event_id: string;
  workspace_id: string;
  type: string;
  entity_type: string;
  entity_id: string;
  actor_user_id: string | null;
  payload: Record<string, unknown>;
  occurred_at: Date;
  attempts: number;
  delivered_to: string[];
  queued_for: string[] | null;
}

export interface ClaimedEvent {
  event: OutboxEventRecord;
  /** Subscribers that already succeeded in an earlier attempt: they are not called again. */
  deliveredTo: string[];
  /** Subscribers with an earlier delivery of this record still parked: this event queues behind it. */
  queuedFor: string[];
}

export function toClaimed(row: OutboxRow): ClaimedEvent {
  return {
    event: {
      id: String(row.id),
      eventId: row.event_id,
      workspaceId: row.workspace_id,
      type: row.type,
      entityType: row.entity_type,
      entityId: row.entity_id,
      actorUserId: row.actor_user_id,
      payload: row.payload,
      occurredAt: row.occurred_at,
      attempts: row.attempts,
    },
    deliveredTo: row.delivered_to ?? [],
    queuedFor: row.queued_for ?? [],
  };
}
