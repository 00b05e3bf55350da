// The engine side of the automations benchmark: the bench automation, leads created in bursts or paced, and the
// figures read back from the executions' rows (commit time, step start, finished_at).
import type { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { createAutomation, toggleAutomation } from '../modules/automations/automations.service';
import { automationCreateBody } from '../modules/automations/definition.schemas';
import type { Ctx } from '../platform/context';
import { createLead } from '../modules/leads/leads.service';
import { commitRecords, type Pacing } from './record-commits';
import { percentile, type Latencies } from './stats';

/** A record_created (lead) automation with `actionCount` create_note actions in a chain, activated. */
export async function createBenchAutomation(ctx: Ctx, actionCount: number): Promise<string> {
  const actions = Array.from({ length: actionCount }, (_, i) => ({
    id: `n${i + 1}`,
    type: 'action',
    data: { actionType: 'create_note', config: { noteContent: `Bench note ${i + 1} for {{lead.title}}` } },
  }));
  const nodes = [
    { id: 'trigger', type: 'trigger', data: { triggerType: 'record_created', config: { entityTypes: ['lead'] } } },
    ...actions,
  ].map((n, i) => ({ ...n, position: { x: 500, y: i * 200 } }));
  const edges = nodes
    .slice(1)
    .map((n, i) => ({ id: `e${i + 1}`, source: nodes[i]!.id, target: n.id, sourceHandle: null }));
  const saved = await createAutomation(ctx, automationCreateBody.parse({ name: 'Automation benchmark', nodes, edges }));
  const id = saved.data._id as string;
  const toggled = await toggleAutomation({ ...ctx, em: ctx.em.fork() }, id);
  if (!toggled.isActive) throw new Error('the bench automation could not be activated');
  return id;
}

/**
 * Creates `count` leads through the leads service (each record_created event starts a run) as `pacing` says; lead id →
 * commit time (ms).
 */
export const createLeads = (
  orm: MikroORM,
  ctx: Omit<Ctx, 'em'>,
  count: number,
  pacing: Pacing,
): Promise<Map<string, number>> =>
  commitRecords(orm, ctx.actor.workspaceId, count, pacing, async (em, i) => {
    const title = `${'everyMs' in pacing ? 'Paced' : 'Bench'} lead ${i}`;
    return ((await createLead({ ...ctx, em }, { title }, { preview: false })) as { _id: string })._id;
  });

export async function executionCounts(
  pool: pg.Pool,
  automationId: string,
): Promise<{ completed: number; failed: number }> {
  const { rows } = await pool.query<{ completed: number; failed: number }>(
    `select count(*) filter (where status = 'completed')::int as completed, count(*) filter (where status in ('failed', 'cancelled'))::int as failed
     from automation_execution where automation_id = $1`,
    [automationId],
  );
  return rows[0]!;
}

/**
 * Waits (through `until`, a bench poller) until `total` executions of the automation completed; fails on a failed or
 * cancelled one. `whose` names the runs in the messages.
 */
export async function completedExecutions(
  until: (what: string, check: () => Promise<boolean>) => Promise<void>,
  pool: pg.Pool,
  automationId: string,
  total: number,
  whose = 'the bench automation',
): Promise<void> {
  await until(`${total} completed runs of ${whose}`, async () => {
    const c = await executionCounts(pool, automationId);
    if (c.failed) throw new Error(`${c.failed} runs of ${whose} failed`);
    return c.completed >= total;
  });
}

/** Event → completion and event → first action (the first action step's start) of the executions of these leads. */
export async function engineLatencies(
  pool: pg.Pool,
  automationId: string,
  committed: Map<string, number>,
): Promise<Latencies & { starts: number[]; ends: number[] }> {
  const { rows } = await pool.query<{ entity_id: string; finished_at: Date; first_action: Date | null }>(
    `select e.entity_id, e.finished_at,
            (select min(s.started_at) from automation_step s where s.execution_id = e.id and s.node_type = 'action') as first_action
     from automation_execution e where e.automation_id = $1 and e.entity_id = any($2)`,
    [automationId, [...committed.keys()]],
  );
  if (rows.length !== committed.size) throw new Error(`expected ${committed.size} executions, found ${rows.length}`);
  const starts = rows.map((r) => committed.get(r.entity_id)!);
  const ends = rows.map((r) => r.finished_at.getTime());
  const done = ends.map((e, i) => e - starts[i]!);
  const firstAction = rows
    .map((r, i) => (r.first_action ? r.first_action.getTime() - starts[i]! : Number.NaN))
    .filter((n) => !Number.isNaN(n));
  return {
    starts,
    ends,
    p50: percentile(done, 50),
    p95: percentile(done, 95),
    firstActionP50: percentile(firstAction, 50),
    firstActionP95: percentile(firstAction, 95),
  };
}

/** Median of each leg of the paced runs: commit → row created (outbox + start), → first action, actions, → finished. */
export async function latencyLegs(
  pool: pg.Pool,
  automationId: string,
  committed: Map<string, number>,
): Promise<string> {
  const { rows } = await pool.query<{
    entity_id: string;
    started_at: Date;
    finished_at: Date;
    steps: { s: string; e: string }[];
  }>(
    `select e.entity_id, e.started_at, e.finished_at,
            (select json_agg(json_build_object('s', s.started_at, 'e', s.ended_at) order by s.started_at) from automation_step s where s.execution_id = e.id and s.node_type = 'action') as steps
     from automation_execution e where e.automation_id = $1 and e.entity_id = any($2)`,
    [automationId, [...committed.keys()]],
  );
  const legs = new Map<string, number[]>();
  const add = (name: string, ms: number): void => void legs.set(name, [...(legs.get(name) ?? []), ms]);
  for (const r of rows) {
    const at = (x: string): number => new Date(x).getTime();
    add('commit→row', r.started_at.getTime() - committed.get(r.entity_id)!);
    let prev = r.started_at.getTime();
    r.steps.forEach((st, i) => {
      add(`→action${i + 1}`, at(st.s) - prev);
      add(`action${i + 1}`, at(st.e) - at(st.s));
      prev = at(st.e);
    });
    add('→finished', r.finished_at.getTime() - prev);
  }
  return [...legs].map(([k, v]) => `${k} ${percentile(v, 50)}`).join(', ');
}

/**
 * B's event → first action over time (diagnosis of a tail): per `bucketMs` after `origin` (when A's burst began),
 * the count, median and worst of the runs whose event committed then.
 */
export async function latencyOverTime(
  pool: pg.Pool,
  automationId: string,
  committed: Map<string, number>,
  origin: number,
  bucketMs = 10_000,
): Promise<string> {
  const { rows } = await pool.query<{ entity_id: string; first_action: Date | null }>(
    `select e.entity_id,
            (select min(s.started_at) from automation_step s where s.execution_id = e.id and s.node_type = 'action') as first_action
     from automation_execution e where e.automation_id = $1 and e.entity_id = any($2)`,
    [automationId, [...committed.keys()]],
  );
  const buckets = new Map<number, number[]>();
  for (const r of rows) {
    if (!r.first_action) continue;
    const at = committed.get(r.entity_id)!;
    const k = Math.floor((at - origin) / bucketMs);
    buckets.set(k, [...(buckets.get(k) ?? []), r.first_action.getTime() - at]);
  }
  return [...buckets]
    .sort(([a], [b]) => a - b)
    .map(([k, v]) => `${(k * bucketMs) / 1000}s: n=${v.length} p50=${percentile(v, 50)} max=${Math.max(...v)}`)
    .join('; ');
}
