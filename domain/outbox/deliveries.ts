/**
 * Parked deliveries (outbox_delivery): when subscriber S fails on event E, (E, S) is parked here in
 * the statement that marks E processed for everyone else; S's later events of the same record are
 * appended behind it (queued) instead of being handed over. This runner retries them in order per
 * (record, subscriber) with the dispatcher's backoff; a delivered row is deleted, one that runs out
 * of attempts or fails permanently stays as `failed` for operators (admin endpoint, `crm outbox`).
 */
import type { Pool } from 'pg';
import type { Logger } from '../logger';
import { mapLimited } from '../shared/concurrency';
import type { Backoff } from './backoff';
import { isPermanentFailure, type OutboxEventRecord, type Subscriber } from './subscriber';

export interface ParkedOptions {
  pool: Pool;
  dispatcherId: string;
  subscribers: readonly Subscriber[];
  log: Logger;
  leaseMs: number;
  batchSize: number;
  concurrency: number;
  backoff: Backoff;
  /** After this many attempts a delivery is `failed`; undefined: retried forever. */
  maxAttempts?: number;
  workspaceIds: readonly string[] | null;
}

export interface ParkedPass {
  claimed: number;
  delivered: number;
  failed: number;
  /** Earliest next attempt written by this pass (ms epoch), if any. */
  nextAt?: number;
}

export interface ParkedRunner {
  runOnce(): Promise<ParkedPass>;
}

interface DeliveryRow {
  id: string;
  subscriber: string;
  outbox_id: string;
  event_id: string;
  workspace_id: string;
  type: string;
  entity_type: string;
  entity_id: string;
  actor_user_id: string | null;
  payload: Record<string, unknown>;
  occurred_at: Date;
  attempts: number;
}

/**
 * Due pending rows that are the head of their (record, subscriber) queue, leased. The order probe is
 * the same LIMIT 1 shape as the outbox claim (outbox.sql.ts). Params: $1 dispatcher, $2 lease ms,
 * $3 limit, $4 subscriber names, [$5 workspaces].
 */
function claimParkedSql(filterWorkspaces: boolean): string {
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

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 2000);

const toEvent = (r: DeliveryRow): OutboxEventRecord => ({
  id: String(r.outbox_id),
  eventId: r.event_id,
  workspaceId: r.workspace_id,
  type: r.type,
  entityType: r.entity_type,
  entityId: r.entity_id,
  actorUserId: r.actor_user_id,
  payload: r.payload,
  occurredAt: r.occurred_at,
  attempts: r.attempts,
});

/** What the outcome of one parked attempt writes: deleted when ok, else retried after delay_ms or failed. */
interface ParkedOutcome {
  id: string;
  ok: boolean;
  failed: boolean;
  error: string | null;
  delay_ms: number;
}

export function createParkedRunner(opts: ParkedOptions): ParkedRunner {
  const byName = new Map(opts.subscribers.map((s) => [s.name, s]));
  const names = [...byName.keys()];

  async function claim(): Promise<DeliveryRow[]> {
    const params: unknown[] = [opts.dispatcherId, opts.leaseMs, opts.batchSize, names];
    if (opts.workspaceIds) params.push([...opts.workspaceIds]);
    const res = await opts.pool.query<DeliveryRow>(claimParkedSql(Boolean(opts.workspaceIds)), params);
    return res.rows;
  }

  /** Hands one subscriber its claimed rows (at most one per record); records each row's outcome. */
  async function deliver(subscriber: Subscriber, rows: DeliveryRow[], out: ParkedOutcome[]): Promise<void> {
    const outcome = (row: DeliveryRow, err: unknown | null): void => {
      if (err === null) return void out.push({ id: row.id, ok: true, failed: false, error: null, delay_ms: 0 });
      const gaveUp = isPermanentFailure(err) || (opts.maxAttempts !== undefined && row.attempts >= opts.maxAttempts);
      out.push({
        id: row.id,
        ok: false,
        failed: gaveUp,
        error: errorMessage(err),
        delay_ms: gaveUp ? 0 : Math.max(0, Math.round(opts.backoff(row.attempts))),
      });
    };
    if (subscriber.handleBatch) {
      try {
        const failures = await subscriber.handleBatch(rows.map(toEvent));
        for (const row of rows)
          outcome(row, failures?.has(String(row.outbox_id)) ? failures.get(String(row.outbox_id)) : null);
      } catch (err) {
        for (const row of rows) outcome(row, err ?? new Error('failed'));
      }
      return;
    }
    await mapLimited(rows, opts.concurrency, async (row) => {
      try {
        await subscriber.handle!(toEvent(row));
        outcome(row, null);
      } catch (err) {
        outcome(row, err ?? new Error('failed'));
      }
    });
  }

  async function record(out: ParkedOutcome[]): Promise<void> {
    await opts.pool.query(
      `with x as (
         select * from jsonb_to_recordset($2::jsonb) as x(id text, ok boolean, failed boolean, error text, delay_ms double precision)),
       gone as (delete from outbox_delivery d using x where d.id = x.id and x.ok and d.locked_by = $1 returning d.id)
       update outbox_delivery d set
         status = case when x.failed then 'failed' else d.status end,
         last_error = x.error,
         next_attempt_at = now() + x.delay_ms * interval '1 millisecond',
         locked_by = null, locked_until = null, updated_at = now()
       from x where d.id = x.id and not x.ok and d.locked_by = $1 and d.status = 'pending'`,
      [opts.dispatcherId, JSON.stringify(out)],
    );
  }

  return {
    async runOnce() {
      const rows = await claim();
      const pass: ParkedPass = { claimed: rows.length, delivered: 0, failed: 0 };
      if (!rows.length) return pass;
      const ids = rows.map((r) => r.id);
      const renew = setInterval(
        () =>
          void opts.pool
            .query(
              `update outbox_delivery set locked_until = now() + $2::double precision * interval '1 millisecond'
               where locked_by = $1 and id = any($3::text[]) and status = 'pending'`,
              [opts.dispatcherId, opts.leaseMs, ids],
            )
            .catch((err: Error) => opts.log.warn({ err: err.message }, 'outbox: parked lease renewal failed')),
        Math.max(50, Math.floor(opts.leaseMs / 3)),
      );
      renew.unref();
      const out: ParkedOutcome[] = [];
      try {
        const groups = new Map<string, DeliveryRow[]>();
        for (const r of rows) groups.set(r.subscriber, [...(groups.get(r.subscriber) ?? []), r]);
        await Promise.all([...groups].map(([name, list]) => deliver(byName.get(name)!, list, out)));
        await record(out);
      } finally {
        clearInterval(renew);
      }
      const now = Date.now();
      for (const o of out) {
        if (o.ok) pass.delivered += 1;
        else {
          pass.failed += 1;
          if (!o.failed) pass.nextAt = Math.min(pass.nextAt ?? Infinity, now + o.delay_ms);
        }
      }
      const failedRows = out.filter((o) => !o.ok);
      if (failedRows.length) {
        const row = new Map(rows.map((r) => [r.id, r]));
        for (const o of failedRows) {
          const r = row.get(o.id)!;
          const fields = { deliveryId: o.id, subscriber: r.subscriber, eventId: r.event_id, attempts: r.attempts };
          if (o.failed) opts.log.error({ ...fields, error: o.error }, 'outbox delivery failed for good');
          else
            opts.log.warn({ ...fields, retryInMs: o.delay_ms, error: o.error }, 'outbox delivery failed; will retry');
        }
      }
      return pass;
    },
  };
}

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
      delivered_to = u.delivered_to || array(select s from unnest(x.subs) s where not (s = any(u.delivered_to))),
      processed_at = case when x.done then now() else null end,
      last_error = coalesce(x.error, u.last_error),
      available_at = case when x.done then u.available_at else now() + x.delay_ms * interval '1 millisecond' end,
      locked_until = null, locked_by = null
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
