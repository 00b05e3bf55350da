/**
 * Durable intake of API starts (webhook, trigger, test): one commit records the run as `queued`
 * and answers; the worker's starter (engine/starter.ts) starts its workflow right after. Nothing
 * waits on the engine, so intake runs at database speed, and a run recorded while the engine or
 * the worker is down starts once they are back (its workflow id is deterministic: no double start).
 */
import { queuedAdmission } from '../../intake/admission';
import { newId } from '../../ids';
import { forkForWorkspace } from '../../orm/tenant';
import type { Automation } from '../automation.entity';
import { automationExecutionKind } from '../../workflow-kinds';
import type { EngineDeps } from './ports';
import { queuedRuns, START_QUEUE_CHANNEL } from '../../intake/queue-signal';
import { createRoots, rowContext, type StartRequest, type StartResult } from './start';

/** Queued runs per workspace before 429 (domain/intake/admission.ts). */
const admitRun = queuedAdmission({ table: 'automation_execution', queued: `status = 'queued'`, what: 'runs' });

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
  await admitRun(deps.orm, req.workspaceId, deps.intakeMaxQueued);
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
