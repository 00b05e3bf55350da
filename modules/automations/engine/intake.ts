/**
 * Durable intake of API starts (webhook, trigger, test): one commit records the run as `queued`
 * and answers; the worker's starter (engine/starter.ts) starts its workflow right after. Nothing
 * waits on the engine, so intake runs at database speed, and a run recorded while the engine or
 * the worker is down starts once they are back (its workflow id is deterministic: no double start).
 */
import { queuedAdmission } from '../../../platform/intake/admission';
import { newId } from '../../../platform/ids';
import { leanQuery } from '../../../platform/orm/lean';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { rateLimitState } from '../../workspaces';
import type { Automation } from '../automation.entity';
import { automationExecutionKind } from '../automation-execution.kind';
import type { EngineDeps } from './ports';
import { queuedRuns, START_QUEUE_CHANNEL } from '../../../platform/intake/queue-signal';
import { createRoots, rowContext } from './rows';
import type { StartRequest, StartResult } from './start-types';
import { submitGuarded } from './intake-batch';
import { recordSkip, skipIdentity } from './skips';

/** Queued runs per workspace before 429 (platform/intake/admission.ts). */
const runAdmission = queuedAdmission({ table: 'automation_execution', queued: `status = 'queued'`, what: 'runs' });
const admit = (deps: EngineDeps, workspaceId: string): Promise<void> =>
  runAdmission.admit(deps.orm, workspaceId, deps.intakeMaxQueued);
/** Admits `n` queued runs of other API starts (retries, engine/retry.ts) or throws 429; `release` gives back. */
export const admitRuns = (deps: EngineDeps, workspaceId: string, n: number): Promise<void> =>
  runAdmission.admit(deps.orm, workspaceId, deps.intakeMaxQueued, n);
export const releaseRuns = (workspaceId: string, n: number): void => runAdmission.release(workspaceId, n);

const EXECUTION_COLUMNS = `id, workspace_id, created_at, updated_at, automation_id, automation_name,
    automation_version, graph, status, trigger_type, trigger_key, entity_type, entity_id, context, is_test,
    workflow_id, parent_execution_id, started_at, run_counted`;
/** The row's values from $<first> on (17 parameters). */
const rowValues = (first: number): string => {
  const $ = (i: number): string => `$${first + i}`;
  return `${$(0)}, ${$(1)}, ${$(2)}, ${$(3)}, ${$(4)}, ${$(5)}, ${$(6)}, ${$(7)}::jsonb, 'queued', ${$(8)}, ${$(9)},
    ${$(10)}, ${$(11)}, ${$(12)}::jsonb, ${$(13)}, ${$(14)}, null, ${$(15)}, ${$(16)}`;
};
const NOTIFY = `pg_notify('${START_QUEUE_CHANNEL}', '')`;

const FAST_INSERT = `with ins as (
  insert into automation_execution (${EXECUTION_COLUMNS})
  values (${rowValues(1)})
  on conflict (automation_id, trigger_key) do nothing returning id)
select id, ${NOTIFY} from ins`;

/** What a start needs of its automation (an entity, or a cached snapshot of one). */
export type AutomationSnapshot = Pick<
  Automation,
  '_id' | 'name' | 'version' | 'nodes' | 'edges' | 'executionSettings' | 'rateLimits'
>;

/** The cached automation a webhook call was checked against, and its per-automation rate limit. */
export interface WebhookGuard {
  version: number;
  updatedAt: Date;
  rateKey: string;
  limits: { perMinute: number; perDay: number };
}

export type GuardedResult = { status: 'stale' } | { status: 'rate_limited'; retryAfter: number } | StartResult;

/** True when the automation has run caps: its starts take the locked path (createRoots). */
export const hasRunCaps = (automation: AutomationSnapshot): boolean => {
  const limits = automation.rateLimits;
  return Boolean(limits?.maxRunsPerHour || limits?.maxRunsPerDay || limits?.maxRunsPerWeek || limits?.maxTotalRuns);
};
const isCapped = (automation: AutomationSnapshot, req: StartRequest): boolean => !req.isTest && hasRunCaps(automation);

function rowParams(automation: AutomationSnapshot, req: StartRequest, id: string, now: Date): unknown[] {
  const graph = { nodes: automation.nodes, edges: automation.edges, executionSettings: automation.executionSettings };
  return [
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
    automationExecutionKind.workflowId(req.workspaceId, id),
    now,
    Boolean(req.isTest),
  ];
}

async function existingRun(deps: EngineDeps, workspaceId: string, automationId: string, triggerKey: string) {
  const [found] = await forkForWorkspace(deps.orm.em, workspaceId).execute<
    { id: string; workflow_id: string; status: 'queued' }[]
  >('select id, workflow_id, status from automation_execution where automation_id = ? and trigger_key = ?', [
    automationId,
    triggerKey.slice(0, 100),
  ]);
  if (!found) throw new Error('the execution of a repeated trigger key vanished');
  return {
    status: 'existing' as const,
    execution: { _id: found.id, workflowId: found.workflow_id, status: found.status },
  };
}

/** The answer once the insert ran: the new queued run, or the run a repeated trigger key recorded before. */
async function recorded(
  deps: EngineDeps,
  automation: AutomationSnapshot,
  req: StartRequest,
  id: string,
  inserted: boolean,
): Promise<StartResult> {
  if (!inserted) {
    // A repeated trigger key queued nothing: its admission goes back (the cap counts queued runs).
    runAdmission.release(req.workspaceId);
    const existing = await existingRun(deps, req.workspaceId, automation._id, req.triggerKey);
    await recordSkip(deps.orm, {
      ...skipIdentity(req, automation._id),
      reason: 'duplicate',
      message: 'this trigger key already recorded a run',
      details: { executionId: existing.execution._id, status: existing.execution.status },
    });
    return existing;
  }
  queuedRuns.emit('queued', req.workspaceId);
  const workflowId = automationExecutionKind.workflowId(req.workspaceId, id);
  return { status: 'started', execution: { _id: id, workflowId, status: 'queued' } };
}

/**
 * A webhook start of an uncapped automation, checked against the cached automation it was
 * authenticated with; the calls arriving together share one statement (intake-batch.ts). Capped
 * automations take enqueueExecution.
 */
export async function enqueueGuarded(
  deps: EngineDeps,
  automation: AutomationSnapshot,
  guard: WebhookGuard,
  req: StartRequest,
): Promise<GuardedResult> {
  if (isCapped(automation, req)) throw new Error('enqueueGuarded: capped automations take enqueueExecution');
  await admit(deps, req.workspaceId);
  const now = req.now ?? new Date();
  const id = newId(now);
  const row = await submitGuarded(deps.orm, {
    id,
    workspaceId: req.workspaceId,
    at: now,
    automationId: automation._id,
    automationName: automation.name,
    automationVersion: automation.version,
    graph: { nodes: automation.nodes, edges: automation.edges, executionSettings: automation.executionSettings },
    triggerType: req.triggerType,
    triggerKey: req.triggerKey,
    entityType: req.entityType ?? null,
    entityId: req.entityId ?? null,
    context: rowContext(req, id),
    isTest: Boolean(req.isTest),
    workflowId: automationExecutionKind.workflowId(req.workspaceId, id),
    version: guard.version,
    updatedAt: guard.updatedAt,
    rateKey: guard.rateKey,
    perMinute: guard.limits.perMinute,
    perDay: guard.limits.perDay,
  });
  if (!row.fresh) {
    runAdmission.release(req.workspaceId);
    return { status: 'stale' };
  }
  const state = rateLimitState({ minute: row.minute, day: row.day }, guard.limits, now);
  if (state.retryAfter !== undefined) {
    runAdmission.release(req.workspaceId);
    await recordSkip(deps.orm, {
      ...skipIdentity(req, automation._id),
      at: now,
      reason: 'rate_limited',
      message: 'too many webhook calls for this automation',
      details: { callsThisMinute: row.minute, callsToday: row.day, ...guard.limits, retryAfter: state.retryAfter },
    });
    return { status: 'rate_limited', retryAfter: state.retryAfter };
  }
  return recorded(deps, automation, req, id, row.inserted);
}

/**
 * Records a root start as `queued`. An automation with run caps takes the locked path (caps and
 * counters in request order, createRoots); one without inserts its row in a single statement that
 * takes no lock on the automation (the starter adds the run to totalRuns). A repeated triggerKey
 * answers the run it already recorded.
 */
export async function enqueueExecution(
  deps: EngineDeps,
  automation: AutomationSnapshot,
  req: StartRequest,
): Promise<StartResult> {
  await admit(deps, req.workspaceId);
  const em = forkForWorkspace(deps.orm.em, req.workspaceId);
  const now = req.now ?? new Date();
  if (isCapped(automation, req)) {
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
  const inserted = await leanQuery<{ id: string }>(
    em,
    FAST_INSERT,
    rowParams(automation, req, id, now),
    'intake_insert',
  );
  return recorded(deps, automation, req, id, inserted.length > 0);
}
