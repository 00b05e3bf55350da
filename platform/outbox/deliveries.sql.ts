import { OUTCOME_SET } from './outbox.sql';
/** The statements of parked deliveries (outbox_delivery; deliveries.ts and the dispatcher's outcome). */

/**
 * Due pending rows that are the head of their (record, subscriber) queue, leased. The order probe is
 * the same LIMIT 1 shape as the outbox claim (outbox.sql.ts). Params: $1 dispatcher, $2 lease ms,
 * $3 limit, $4 subscriber names, [$5 workspaces].
 */
export function claimParkedSql(filterWorkspaces: boolean): string {
  return `
    with due as (
      select d.id from outbox_delivery d
      where d.status = 'pending' and d.next_attempt_at <= now()
        and (d.locked_until is null or d.locked_until <= now())
        and d.subscriber = any($4::text[])
        ${filterWorkspaces ? 'and d.workspace_id = any($5::text[])' : ''}
        and (
          select d2.id from outbox_delivery d2
          where d2.status = 'pending' and d2.workspace_id = d.workspace_id and d2.entity_type = d.entity_type
            and d2.entity_id = d.entity_id and d2.subscriber = d.subscriber and d2.outbox_id < d.outbox_id
          limit 1) is null
      order by d.next_attempt_at, d.outbox_id
      limit $3
      for update skip locked
    )
    update outbox_delivery u
    set locked_by = $1, locked_until = now() + $2::double precision * interval '1 millisecond',
      attempts = u.attempts + 1, last_attempt_at = now(), updated_at = now()
    from due where u.id = due.id
    returning u.id, u.subscriber, u.outbox_id, u.event_id, u.workspace_id, u.type, u.entity_type, u.entity_id,
      u.actor_user_id, u.payload, u.occurred_at, u.attempts`;
}

/**
 * The outcome of parked attempts ($2: [{ id, ok, failed, error, delay_ms }]): a delivered row is
 * deleted and its subscriber appended to the event's delivered_to (as a first-attempt success is),
 * a failed one is retried after delay_ms or stays `failed`. Only rows leased by $1.
 */
export const PARKED_OUTCOME_SQL = `
  with x as (
    select * from jsonb_to_recordset($2::jsonb) as x(id text, ok boolean, failed boolean, error text, delay_ms double precision)),
  gone as (
    delete from outbox_delivery d using x where d.id = x.id and x.ok and d.locked_by = $1
    returning d.outbox_id, d.subscriber),
  delivered as (
    update outbox_event e set delivered_to = e.delivered_to || array(
      select distinct g.subscriber from gone g where g.outbox_id = e.id and not (g.subscriber = any(e.delivered_to)))
    where e.id in (select outbox_id from gone))
  update outbox_delivery d set
    status = case when x.failed then 'failed' else d.status end,
    last_error = x.error,
    next_attempt_at = now() + x.delay_ms * interval '1 millisecond',
    locked_by = null, locked_until = null, updated_at = now()
  from x where d.id = x.id and not x.ok and d.locked_by = $1 and d.status = 'pending'`;

/** Renews the lease of rows being attempted. Params: $1 dispatcher, $2 lease ms, $3 ids. */
export const RENEW_PARKED_SQL = `
  update outbox_delivery set locked_until = now() + $2::double precision * interval '1 millisecond'
  where locked_by = $1 and id = any($3::text[]) and status = 'pending'`;

/** A parked or queued delivery written with its event's outcome (dispatcher record()). */
export interface ParkRow {
  did: string;
  outbox_id: string;
  subscriber: string;
  status: 'pending' | 'failed';
  attempts: number;
  delay_ms: number;
  error: string | null;
}

/**
 * The outcome statement when some subscriber failed or queued: the events' outcome (as the plain
 * one in the dispatcher) and the parked rows, in one statement so an event is never processed
 * without its parked deliveries. Only rows this dispatcher still leases are written.
 * Params: $1 dispatcher, $2 outcomes, $3 park rows.
 */
export const RECORD_WITH_PARKED_SQL = `
  with x as (
    select * from jsonb_to_recordset($2::jsonb) as x(id bigint, subs text[], done boolean, error text, delay_ms double precision)),
  u as (
    update outbox_event u set
${OUTCOME_SET}
    from x
    where u.id = x.id and u.locked_by = $1 and u.processed_at is null
    returning u.id, u.event_id, u.workspace_id, u.type, u.entity_type, u.entity_id, u.actor_user_id, u.payload,
      u.occurred_at, x.done),
  parked as (
    insert into outbox_delivery (id, workspace_id, subscriber, outbox_id, event_id, type, entity_type, entity_id,
      actor_user_id, payload, occurred_at, status, attempts, next_attempt_at, last_error, last_attempt_at)
    select k.did, u.workspace_id, k.subscriber, u.id, u.event_id, u.type, u.entity_type, u.entity_id, u.actor_user_id,
      u.payload, u.occurred_at, k.status, k.attempts, now() + k.delay_ms * interval '1 millisecond', k.error,
      case when k.attempts > 0 then now() end
    from jsonb_to_recordset($3::jsonb) as k(did text, outbox_id bigint, subscriber text, status text, attempts int,
      delay_ms double precision, error text)
    join u on u.id = k.outbox_id and u.done
    on conflict (event_id, subscriber) do nothing
    returning 1)
  select u.id, u.done and exists (
    select 1 from outbox_event e2 where e2.processed_at is null and e2.workspace_id = u.workspace_id
      and e2.entity_type = u.entity_type and e2.entity_id = u.entity_id and e2.id > u.id) as more,
    (select count(*) from parked)::int as parked
  from u`;
