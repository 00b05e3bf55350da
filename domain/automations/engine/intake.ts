/**
 * Durable intake of API starts (webhook, trigger, test): one commit records the run as `queued`
 * and answers; the worker's starter (engine/starter.ts) starts its workflow right after. Nothing
 * waits on the engine, so intake runs at database speed, and a run recorded while the engine or
 * the worker is down starts once they are back (its workflow id is deterministic: no double start).
 */
import { DomainError } from '../../errors';
import { newId } from '../../ids';
import { forkForWorkspace } from '../../orm/tenant';
import type { Automation } from '../automation.entity';
import { automationExecutionKind } from '../../workflow-kinds';
import type { EngineDeps } from './ports';
import { queuedRuns, START_QUEUE_CHANNEL } from './queue-signal';
import { createRoots, rowContext, type StartRequest, type StartResult } from './start';

export const DEFAULT_MAX_QUEUED = 10_000;
/** How long one API process trusts its count of a workspace's queued runs (plus what it queued since). */
const COUNT_TTL_MS = 250;
const RETRY_AFTER_S = 2;

interface QueuedCount {
  n: number;
  at: number;
  pending?: Promise<number>;
}
const counts = new Map<string, QueuedCount>();

/**
 * Back-pressure per workspace: at `cap` queued runs a start is refused with 429 and Retry-After,
 * never left to time out. The count is read at most every COUNT_TTL_MS per process (bounded by
 * `limit cap`) and advanced locally in between, so the check costs no statement per request.
 */
async function admit(deps: EngineDeps, workspaceId: string): Promise<void> {
  const cap = deps.intakeMaxQueued ?? DEFAULT_MAX_QUEUED;
  let c = counts.get(workspaceId);
  if (!c || Date.now() - c.at > COUNT_TTL_MS) {
    const entry: QueuedCount = c ?? { n: 0, at: 0 };
    entry.pending ??= deps.orm.em
      .getConnection()
      .execute<{ n: number }[]>(
        `select count(*)::int as n from (select 1 from automation_execution where workspace_id = ? and status = 'queued' limit ?) t`,
        [workspaceId, cap],
      )
      .then((rows) => rows[0]?.n ?? 0)
      .finally(() => {
        entry.pending = undefined;
      });
    const p = entry.pending;
    counts.set(workspaceId, entry);
    const n = await p;
    if (entry.at < Date.now() - COUNT_TTL_MS) {
      entry.n = n;
      entry.at = Date.now();
    }
    c = entry;
  }
  if (c.n >= cap)
    throw new DomainError(
      'rate_limited',
      `too many runs of this workspace are waiting to start (${cap}); retry later`,
      { queued: c.n, cap },
      { 'Retry-After': String(RETRY_AFTER_S) },
    );
  c.n += 1;
}

const FAST_INSERT = `with ins as (
  insert into automation_execution (id, workspace_id, created_at, updated_at, automation_id, automation_name,
    automation_version, graph, status, trigger_type, trigger_key, entity_type, entity_id, context, is_test,
    workflow_id, parent_execution_id, started_at, run_counted)
  values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, 'queued', ?, ?, ?, ?, ?::jsonb, ?, ?, null, ?, ?)
  on conflict (automation_id, trigger_key) do nothing returning id)
select id, pg_notify('${START_QUEUE_CHANNEL}', '') from ins`;

/**
 * Records a root start as `queued`. An automation with run caps takes the locked path (caps and
 * counters in request order, createRoots); one without inserts its row in a single statement that
 * takes no lock on the automation (the starter adds the run to totalRuns). A repeated triggerKey
 * answers the run it already recorded.
 */
export async function enqueueExecution(
  deps: EngineDeps,
  automation: Automation,
  req: StartRequest,
): Promise<StartResult> {
  await admit(deps, req.workspaceId);
  const em = forkForWorkspace(deps.orm.em, req.workspaceId);
  const now = req.now ?? new Date();
  const limits = automation.rateLimits;
  const capped =
    !req.isTest &&
    Boolean(limits?.maxRunsPerHour || limits?.maxRunsPerDay || limits?.maxRunsPerWeek || limits?.maxTotalRuns);
  if (capped) {
    const [created] = await createRoots(em, automation._id, [req], now, { queued: true });
    if (!created) throw new Error('createRoots returned no outcome');
    if ('skipped' in created) return { status: 'skipped', reason: created.skipped };
    const e = created.execution;
    if (!created.existing) queuedRuns.emit('queued', req.workspaceId);
    return {
      status: created.existing ? 'existing' : 'started',
      execution: { _id: e._id, workflowId: e.workflowId, status: e.status },
    };
  }
  const id = newId(now);
  const workflowId = automationExecutionKind.workflowId(req.workspaceId, id);
  const graph = { nodes: automation.nodes, edges: automation.edges, executionSettings: automation.executionSettings };
  const inserted = await em.execute<{ id: string }[]>(FAST_INSERT, [
    id,
    req.workspaceId,
    now,
    now,
    automation._id,
    automation.name,
    automation.version,
    JSON.stringify(graph),
    req.triggerType.slice(0, 60),
    req.triggerKey.slice(0, 100),
    req.entityType ?? null,
    req.entityId ?? null,
    JSON.stringify(rowContext(req, id)),
    Boolean(req.isTest),
    workflowId,
    now,
    Boolean(req.isTest),
  ]);
  if (inserted.length) {
    queuedRuns.emit('queued', req.workspaceId);
    return { status: 'started', execution: { _id: id, workflowId, status: 'queued' } };
  }
  const [found] = await em.execute<{ id: string; workflow_id: string; status: 'queued' }[]>(
    'select id, workflow_id, status from automation_execution where automation_id = ? and trigger_key = ?',
    [automation._id, req.triggerKey.slice(0, 100)],
  );
  if (!found) throw new Error('the execution of a repeated trigger key vanished');
  return { status: 'existing', execution: { _id: found.id, workflowId: found.workflow_id, status: found.status } };
}
