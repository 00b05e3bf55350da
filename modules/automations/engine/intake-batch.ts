/**
 * The webhook intake's group commit (platform/intake/group-commit.ts): the guarded starts of calls
 * arriving together are one statement. For every call it checks the cached automation is still
 * current and active, counts the call in its automation's rate-limit windows (one upsert per
 * automation and window for the whole batch, not one per call on the same hot row) and records the
 * run when both windows allow it, in arrival order; one NOTIFY wakes the starter. All or nothing.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { groupCommit } from '../../../platform/intake/group-commit';
import { START_QUEUE_CHANNEL } from '../../../platform/intake/queue-signal';
import { leanQuery } from '../../../platform/orm/lean';
import { rateWindows } from '../../workspaces';

/** One call of the batch: the run's row and what its automation was checked against. */
export interface GuardedRow {
  id: string;
  workspaceId: string;
  at: Date;
  automationId: string;
  automationName: string;
  automationVersion: number;
  graph: unknown;
  triggerType: string;
  triggerKey: string;
  entityType: string | null;
  entityId: string | null;
  context: unknown;
  isTest: boolean;
  workflowId: string;
  /** The cached automation's version and updatedAt: the run is recorded only if they are still current. */
  version: number;
  updatedAt: Date;
  rateKey: string;
  perMinute: number;
  perDay: number;
}

/**
 * `fresh` false: the cache entry is stale (nothing counted or recorded); else the call's counts and
 * whether its row went in.
 */
export interface GuardedOutcome {
  fresh: boolean;
  minute: number;
  day: number;
  inserted: boolean;
}

const BATCH_INSERT = `with input as (
  select * from jsonb_to_recordset($1::jsonb) as r(ord int, id varchar, workspace_id varchar, queued_at timestamptz,
    automation_id varchar, automation_name varchar, automation_version int, graph jsonb, trigger_type varchar,
    trigger_key varchar, entity_type varchar, entity_id varchar, context jsonb, is_test boolean, workflow_id varchar,
    version int, updated_at timestamptz, rate_key varchar, per_minute int, per_day int)),
fresh as (
  select i.ord, i.rate_key from input i join automation a on a.id = i.automation_id
     and a.workspace_id = i.workspace_id and a.version = i.version
     and date_trunc('milliseconds', a.updated_at) = i.updated_at and a.is_active and a.trigger_type = 'webhook'),
calls as (select rate_key, count(*)::int as n from fresh group by rate_key),
rl as (
  insert into rate_limit_window (key_id, kind, window_start, count)
  select c.rate_key, k.kind, k.ws, c.n from calls c cross join (values ('m', $2::timestamptz), ('d', $3::timestamptz)) k(kind, ws)
  on conflict (key_id, kind, window_start) do update set count = rate_limit_window.count + excluded.count
  returning key_id, kind, count),
counted as (
  select f.ord, m.count - c.n + row_number() over w as minute, d.count - c.n + row_number() over w as day
    from fresh f join calls c on c.rate_key = f.rate_key
    join rl m on m.key_id = f.rate_key and m.kind = 'm' join rl d on d.key_id = f.rate_key and d.kind = 'd'
  window w as (partition by f.rate_key order by f.ord)),
ins as (
  insert into automation_execution (id, workspace_id, created_at, updated_at, automation_id, automation_name,
    automation_version, graph, status, trigger_type, trigger_key, entity_type, entity_id, context, is_test,
    workflow_id, parent_execution_id, started_at, run_counted)
  select i.id, i.workspace_id, i.queued_at, i.queued_at, i.automation_id, i.automation_name, i.automation_version, i.graph, 'queued',
      i.trigger_type, i.trigger_key, i.entity_type, i.entity_id, i.context, i.is_test, i.workflow_id, null, i.queued_at, i.is_test
    from input i join counted k on k.ord = i.ord
   where k.minute <= i.per_minute and k.day <= i.per_day
   order by i.ord
  on conflict (automation_id, trigger_key) do nothing returning id)
select i.ord, k.ord is not null as fresh, k.minute::int as minute, k.day::int as day, x.id is not null as inserted,
    (select count(pg_notify('${START_QUEUE_CHANNEL}', '')) from (select 1 from ins limit 1) n)::int as notified
  from input i left join counted k on k.ord = i.ord left join ins x on x.id = i.id
 order by i.ord`;

/** Calls per statement; beyond that the next batch takes the rest. */
const MAX_BATCH = 200;
/** Batches in Postgres at once (the pool has DB_POOL_MAX connections; the rest is for everything else). */
const MAX_IN_FLIGHT = 2;

async function runBatch(orm: MikroORM, rows: GuardedRow[]): Promise<GuardedOutcome[]> {
  const { minuteStart, dayStart } = rateWindows(new Date());
  const input = rows.map((r, ord) => ({
    ord,
    id: r.id,
    workspace_id: r.workspaceId,
    queued_at: r.at.toISOString(),
    automation_id: r.automationId,
    automation_name: r.automationName,
    automation_version: r.automationVersion,
    graph: r.graph,
    trigger_type: r.triggerType.slice(0, 60),
    trigger_key: r.triggerKey.slice(0, 100),
    entity_type: r.entityType,
    entity_id: r.entityId,
    context: r.context,
    is_test: r.isTest,
    workflow_id: r.workflowId,
    version: r.version,
    updated_at: r.updatedAt.toISOString(),
    rate_key: r.rateKey,
    per_minute: r.perMinute,
    per_day: r.perDay,
  }));
  const out = await leanQuery<{
    ord: number;
    fresh: boolean;
    minute: number | null;
    day: number | null;
    inserted: boolean;
  }>(
    orm.em.fork({ clear: true, useContext: false }),
    BATCH_INSERT,
    [JSON.stringify(input), minuteStart, dayStart],
    'intake_guarded_batch',
  );
  return out.map((o) => ({ fresh: o.fresh, minute: o.minute ?? 0, day: o.day ?? 0, inserted: o.inserted }));
}

const batchers = new WeakMap<MikroORM, (row: GuardedRow) => Promise<GuardedOutcome>>();

/** Records one guarded webhook start together with the calls arriving at the same time (one statement per batch). */
export function submitGuarded(orm: MikroORM, row: GuardedRow): Promise<GuardedOutcome> {
  let submit = batchers.get(orm);
  if (!submit) {
    submit = groupCommit((rows: GuardedRow[]) => runBatch(orm, rows), {
      maxBatch: MAX_BATCH,
      maxInFlight: MAX_IN_FLIGHT,
    });
    batchers.set(orm, submit);
  }
  return submit(row);
}
