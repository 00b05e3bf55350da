import type { EventName } from './catalog';
import type { OutboxEventRecord } from './subscriber';

/** Workspaces one claim serves at most (a wider backlog is served in turns, see fairWorkspacesSql). */
export const CLAIM_WORKSPACES = 8;

/**
 * The workspaces with unprocessed events that one claim serves: up to CLAIM_WORKSPACES, in workspace id order from
 * just after the cursor $4 (the last one the previous claim served), wrapping around, so that with more workspaces
 * in the backlog than that each gets its turn. Each step is one probe of outbox_event_pending_workspace_index (a
 * skip scan), so the cost grows with the number of workspaces, not with the backlog.
 */
function fairWorkspacesSql(filterWorkspaces: boolean): string {
  const scope = filterWorkspaces ? 'and e.workspace_id = any($5::text[])' : '';
  const next = (bound: string) => `(select e.workspace_id from outbox_event e
        where e.processed_at is null ${scope} and ${bound} order by e.workspace_id limit 1)`;
  return `
    after(w, n) as (
      select ${next('e.workspace_id > $4')}, 1
      union all
      select ${next('e.workspace_id > after.w')}, n + 1 from after where after.w is not null and n < ${CLAIM_WORKSPACES}
    ),
    wrapped(w, n) as (
      select ${next('e.workspace_id <= $4')}, 1
      union all
      select ${next('e.workspace_id > wrapped.w and e.workspace_id <= $4')}, n + 1
        from wrapped where wrapped.w is not null and n < ${CLAIM_WORKSPACES}
    ),
    ws as (
      select w from (select w, n from after where w is not null union all select w, 1000 + n from wrapped where w is not null) x
      order by n limit ${CLAIM_WORKSPACES}
    )`;
}

/** When the event `o` is claimable (see claimSql): due, not leased, no earlier event of its record unprocessed. */
const CLAIMABLE = `o.processed_at is null
  and o.available_at <= now()
  and (o.locked_until is null or o.locked_until <= now())
  and (
    select e2.id from outbox_event e2
    where e2.processed_at is null and e2.workspace_id = o.workspace_id
      and e2.entity_type = o.entity_type and e2.entity_id = o.entity_id and e2.id < o.id
    limit 1) is null`;

/**
 * The claim, one statement in its own transaction. An event is claimable when it is due, not
 * leased (or its lease expired after a crash), and no earlier event of the same record is still
 * unprocessed, so a record's events go out one at a time in id order and a failing event holds
 * back only its own record. SKIP LOCKED lets concurrent dispatchers claim disjoint rows; the
 * lease (locked_by/locked_until) keeps them disjoint after the claim commits.
 * Fair between workspaces: the batch takes each served workspace's oldest claimable events in turns (the first of
 * each, then the second of each, …), so one workspace's burst of thousands of events does not delay another
 * workspace's next event by more than one batch; a workspace alone still fills whole batches.
 * The order check is a scalar subquery with LIMIT 1, not NOT EXISTS: an anti-join may be planned
 * as a scan of every unprocessed row per candidate when the statistics predate a burst (no
 * unprocessed rows when last analysed), O(backlog²); the subquery always probes
 * outbox_event_pending_record_index for one record.
 * `queued_for` names the subscribers that still have an earlier delivery of this record parked
 * (outbox_delivery, pending): the event queues behind it for them instead of being handed over.
 * Params: $1 dispatcher id, $2 lease ms, $3 batch size, $4 workspace cursor ('' at first), [$5 workspace ids].
 */
export function claimSql(filterWorkspaces: boolean, fair = true): string {
  if (!fair) return fifoClaimSql(filterWorkspaces);
  return `
    with recursive ${fairWorkspacesSql(filterWorkspaces)},
    candidates as (
      select c.id, row_number() over (partition by ws.w order by c.id) as turn
      from ws cross join lateral (
        select o.id from outbox_event o
        where o.workspace_id = ws.w and ${CLAIMABLE}
        order by o.id
        limit $3
        for update of o skip locked
      ) c
    ),
    claimable as (select id from candidates order by turn, id limit $3)
    ${CLAIM_UPDATE}`;
}

/** The claim without fair sharing: the oldest claimable events of any workspace ($4 unused). */
function fifoClaimSql(filterWorkspaces: boolean): string {
  return `
    with claimable as (
      select o.id from outbox_event o
      where ${CLAIMABLE}
        ${filterWorkspaces ? 'and o.workspace_id = any($5::text[])' : ''}
        and $4::text is not null
      order by o.id
      limit $3
      for update skip locked
    )
    ${CLAIM_UPDATE}`;
}

/** The lease of the claimed rows and what a delivery needs of them. */
const CLAIM_UPDATE = `update outbox_event u
    set locked_by = $1, locked_until = now() + $2::double precision * interval '1 millisecond', attempts = u.attempts + 1
    from claimable where u.id = claimable.id
    returning u.id, u.event_id, u.workspace_id, u.type, u.entity_type, u.entity_id, u.actor_user_id,
      u.payload, u.occurred_at, u.attempts, u.delivered_to,
      (select array_agg(distinct d.subscriber) from outbox_delivery d
        where d.status = 'pending' and d.workspace_id = u.workspace_id
          and d.entity_type = u.entity_type and d.entity_id = u.entity_id) as queued_for`;

/** Renews the lease of events being delivered. Params: $1 dispatcher, $2 lease ms, $3 ids. */
export const RENEW_EVENTS_SQL = `
  update outbox_event set locked_until = now() + $2::double precision * interval '1 millisecond'
  where locked_by = $1 and id = any($3::bigint[]) and processed_at is null`;

/**
 * The SET list of an event's outcome (alias u = outbox_event, x = the outcome row: subs, done, error,
 * delay_ms), shared by RECORD_SQL and RECORD_WITH_PARKED_SQL.
 */
export const OUTCOME_SET = `
    delivered_to = u.delivered_to || array(select s from unnest(x.subs) s where not (s = any(u.delivered_to))),
    processed_at = case when x.done then now() else null end,
    last_error = coalesce(x.error, u.last_error),
    available_at = case when x.done then u.available_at else now() + x.delay_ms * interval '1 millisecond' end,
    locked_until = null, locked_by = null`;

/**
 * Every event's outcome in one statement (when no subscriber failed or queued; else
 * RECORD_WITH_PARKED_SQL in deliveries.sql.ts): delivered subscribers appended, then processed, or
 * released for a retry after delay_ms. Only rows leased by $1 change; `more`: the record has a later
 * event waiting. Params: $1 dispatcher, $2 [{ id, subs, done, error, delay_ms }].
 */
export const RECORD_SQL = `
  update outbox_event u set
${OUTCOME_SET}
  from jsonb_to_recordset($2::jsonb) as x(id bigint, subs text[], done boolean, error text, delay_ms double precision)
  where u.id = x.id and u.locked_by = $1 and u.processed_at is null
  returning u.id, x.done and exists (
    select 1 from outbox_event e2 where e2.processed_at is null and e2.workspace_id = u.workspace_id
      and e2.entity_type = u.entity_type and e2.entity_id = u.entity_id and e2.id > u.id) as more`;

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

/** The event fields of a claimed row (an outbox_event row, or a parked delivery joined with its event). */
export type EventColumns = Pick<
  OutboxRow,
  | 'event_id'
  | 'workspace_id'
  | 'type'
  | 'entity_type'
  | 'entity_id'
  | 'actor_user_id'
  | 'payload'
  | 'occurred_at'
  | 'attempts'
>;

/** The record a subscriber gets; `id` is the outbox_event id. */
export function eventOf(row: EventColumns, id: string): OutboxEventRecord {
  return {
    id: String(id),
    eventId: row.event_id,
    workspaceId: row.workspace_id,
    type: row.type as EventName,
    entityType: row.entity_type,
    entityId: row.entity_id,
    actorUserId: row.actor_user_id,
    payload: row.payload,
    occurredAt: row.occurred_at,
    attempts: row.attempts,
  };
}

export function toClaimed(row: OutboxRow): ClaimedEvent {
  return {
    event: eventOf(row, row.id),
    deliveredTo: row.delivered_to ?? [],
    queuedFor: row.queued_for ?? [],
  };
}
