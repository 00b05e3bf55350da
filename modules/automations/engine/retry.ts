/**
 * Retrying failed executions (POST /automations/executions/:executionId/retry and the bulk form). A retry is a
 * new execution (its own row and a new Temporal workflow run, `automation-execution:<workspace>:<new id>`) that
 * names the run it retries (`retryOf`); the original and its workflow history stay as they were.
 *
 * From the failed step, the new run starts with the recorded results of the steps the original completed: their
 * step rows are copied to the new execution in the transaction that records it, and its workflow input carries
 * their branches (`resume`). Trigger, condition and delay nodes are then not decided again; action, lookup and ai
 * nodes call their activity, which finds the copied step `completed` (the step log is the activities' idempotency
 * record, actions/step-runner.ts) and returns the stored output without acting. The failed node has no
 * copied row, so it acts again (with a new idempotency key, `<new id>:<node>`), and so do the nodes after it.
 * From the start nothing is copied: every node runs again.
 *
 * The run is recorded `queued` like every API start (engine/intake.ts): the worker's starter starts its workflow,
 * the workspace's queued-runs admission applies (429), and so do the automation's per-window run caps (the
 * automation row is locked as createRoots does). Retries do not need the automation to be active: they repair runs
 * that were admitted once.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, notFound } from '../../../platform/errors';
import { newId } from '../../../platform/ids';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { notifyQueued, queuedRuns } from '../../../platform/intake/queue-signal';
import { automationExecutionKind } from '../automation-execution.kind';
import { Automation, AutomationExecution, AutomationStep } from '../automation.entity';
import { formatGraphErrors, validateAutomationGraph } from '../graph';
import type { EngineDeps } from './ports';
import { admitRuns, releaseRuns } from './intake';
import { capReached, windowCounts } from './rows';
import type { RetryContext, RetryDefinition, RetryFrom } from './retry-context';
import type { GraphSnapshot } from './types.pure';

export type { RetryDefinition, RetryFrom } from './retry-context';

export interface RetryOptions {
  from: RetryFrom;
  definition: RetryDefinition;
}

export interface RetryResult {
  executionId: string;
  workflowId: string;
  status: AutomationExecution['status'];
  retryOf: string;
  from: RetryFrom;
  definition: RetryDefinition;
  /** Steps of the original carried over as completed (0 from the start). */
  reusedSteps: number;
  /** True when this request found the retry it had already recorded (same Idempotency-Key). */
  existing: boolean;
}

/** What one retry will record: its graph, the original's steps it carries over and their branches. */
interface Plan {
  original: AutomationExecution;
  graph: GraphSnapshot;
  /** The automation version of that graph. */
  version: number;
  carried: AutomationStep[];
  retry: RetryContext;
}

const currentGraph = (a: Automation): GraphSnapshot => ({
  nodes: a.nodes,
  edges: a.edges,
  executionSettings: a.executionSettings,
});

/** The plan of one retry, or the reason (409) it cannot be made. */
function plan(
  original: AutomationExecution,
  steps: readonly AutomationStep[],
  automation: Automation,
  opts: RetryOptions,
): Plan | { refused: string } {
  if (original.status !== 'failed')
    return { refused: `execution is ${original.status}; only failed executions can be retried` };
  let graph = original.graph;
  let version = original.automationVersion;
  if (opts.definition === 'current') {
    graph = currentGraph(automation);
    version = automation.version;
    const check = validateAutomationGraph(graph.nodes, graph.edges);
    if (!check.ok) return { refused: `the automation's current graph cannot run: ${formatGraphErrors(check.errors)}` };
    const failed = steps.find((s) => s.status === 'failed');
    if (opts.from === 'failed_step' && failed && !graph.nodes.some((n) => n.id === failed.nodeId))
      return {
        refused: `the failed node ${failed.nodeId} is not in the automation's current graph (version ${automation.version}): retry with definition "original" or from "start"`,
      };
  }
  const types = new Map(graph.nodes.map((n) => [n.id, n.type]));
  const carried =
    opts.from === 'start'
      ? []
      : steps.filter((s) => (s.status === 'completed' || s.status === 'skipped') && types.get(s.nodeId) === s.nodeType);
  const recorded: Record<string, string | null> = {};
  for (const s of carried) recorded[s.nodeId] = s.handle ?? null;
  return {
    original,
    graph,
    version,
    carried,
    retry: { of: original._id, from: opts.from, definition: opts.definition, recorded },
  };
}

/** Records the retry's row (queued) and its carried step rows; the caller's transaction commits them. */
function record(em: EntityManager, p: Plan, triggerKey: string, now: Date): AutomationExecution {
  const o = p.original;
  const _id = newId(now);
  const system = (o.context.system && typeof o.context.system === 'object' ? o.context.system : {}) as Record<
    string,
    unknown
  >;
  const row = em.create(AutomationExecution, {
    _id,
    workspaceId: o.workspaceId,
    createdAt: now,
    updatedAt: now,
    automationId: o.automationId,
    automationName: o.automationName,
    automationVersion: p.version,
    graph: p.graph,
    status: 'queued',
    triggerType: o.triggerType,
    triggerKey,
    entityType: o.entityType ?? null,
    entityId: o.entityId ?? null,
    context: { ...o.context, system: { ...system, executionId: _id, retry: p.retry } },
    isTest: o.isTest,
    workflowId: automationExecutionKind.workflowId(o.workspaceId, _id),
    parentExecutionId: o.parentExecutionId ?? null,
    startedAt: now,
    finishedAt: null,
    durationMs: null,
    error: null,
    startLeaseUntil: null,
    // The starter adds the run to the automation's totalRuns when it claims it (test runs never count).
    runCounted: o.isTest,
    retryOf: o._id,
  });
  em.persist(row);
  for (const s of p.carried) {
    em.persist(
      em.create(AutomationStep, {
        _id: newId(now),
        workspaceId: s.workspaceId,
        createdAt: now,
        updatedAt: now,
        executionId: _id,
        nodeId: s.nodeId,
        nodeType: s.nodeType,
        actionType: s.actionType ?? null,
        status: s.status,
        attempt: s.attempt,
        startedAt: s.startedAt,
        endedAt: s.endedAt ?? null,
        input: s.input ?? null,
        output: s.output ?? null,
        error: null,
        handle: s.handle ?? null,
      }),
    );
  }
  return row;
}

/** How many more real runs the automation's per-window caps admit now (Infinity without caps). */
async function capRoom(em: EntityManager, automation: Automation, now: Date, wanted: number): Promise<number> {
  const counts = await windowCounts(em, automation, now);
  let room = 0;
  while (room < wanted && !capReached(automation, counts, room)) room++;
  return room;
}

async function locked<T>(em: EntityManager, automationId: string, fn: (a: Automation) => Promise<T>): Promise<T> {
  await em.begin();
  try {
    const automation = await em.findOne(Automation, { _id: automationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!automation) throw notFound('automation');
    const out = await fn(automation);
    await em.flush();
    await em.commit();
    return out;
  } catch (err) {
    await em.rollback();
    throw err;
  }
}

const stepsOf = async (em: EntityManager, ids: readonly string[]): Promise<Map<string, AutomationStep[]>> => {
  const by = new Map<string, AutomationStep[]>();
  if (!ids.length) return by;
  const rows = await em.find(
    AutomationStep,
    { executionId: { $in: [...ids] } },
    { orderBy: { startedAt: 'asc', _id: 'asc' } },
  );
  for (const s of rows) by.set(s.executionId, [...(by.get(s.executionId) ?? []), s]);
  return by;
};

const resultOf = (row: AutomationExecution, p: Pick<Plan, 'retry' | 'carried'>, existing: boolean): RetryResult => ({
  executionId: row._id,
  workflowId: row.workflowId,
  status: row.status,
  retryOf: p.retry.of,
  from: p.retry.from,
  definition: p.retry.definition,
  reusedSteps: p.carried.length,
  existing,
});

/**
 * Retries one failed execution. `requestKey` (from the request's Idempotency-Key) names the retry, so a repeated
 * request whose answer was lost finds the run it recorded; without it, the retry is the original's next
 * (`retry:<original>:<n>`), so two concurrent requests record one run.
 */
export async function retryExecution(
  deps: EngineDeps,
  workspaceId: string,
  executionId: string,
  opts: RetryOptions,
  requestKey?: string,
): Promise<RetryResult> {
  const em = forkForWorkspace(deps.orm.em, workspaceId);
  const first = await em.findOne(AutomationExecution, { _id: executionId }, { fields: ['automationId'] });
  if (!first) throw notFound('automation execution');
  await admitRuns(deps, workspaceId, 1);
  let queued = false;
  try {
    const out = await locked(em, first.automationId, async (automation) => {
      const original = await em.findOneOrFail(AutomationExecution, { _id: executionId }, { refresh: true });
      const n = await em.count(AutomationExecution, { retryOf: executionId });
      const triggerKey = `retry:${executionId}:${requestKey ?? n + 1}`;
      const again = requestKey
        ? await em.findOne(AutomationExecution, { automationId: automation._id, triggerKey })
        : null;
      const steps = (await stepsOf(em, [executionId])).get(executionId) ?? [];
      if (again) {
        const retry = again.context.system as { retry?: RetryContext } | undefined;
        const carried = steps.filter((s) => retry?.retry?.recorded && s.nodeId in retry.retry.recorded);
        return resultOf(again, { retry: retry?.retry ?? { ...opts, of: executionId, recorded: {} }, carried }, true);
      }
      const p = plan(original, steps, automation, opts);
      if ('refused' in p) throw new DomainError(original.status === 'failed' ? 'conflict' : 'invalid_state', p.refused);
      const now = new Date();
      if (!original.isTest && (await capRoom(em, automation, now, 1)) < 1)
        throw new DomainError(
          'invalid_state',
          `retry skipped: ${capReached(automation, await windowCounts(em, automation, now), 0)?.message ?? 'no room'}`,
        );
      const row = record(em, p, triggerKey, now);
      await em.flush();
      await notifyQueued(em);
      return resultOf(row, p, false);
    });
    queued = !out.existing;
    if (queued) queuedRuns.emit('queued', workspaceId);
    return out;
  } finally {
    if (!queued) releaseRuns(workspaceId, 1);
  }
}

export interface BulkRetryInput extends RetryOptions {
  status: 'failed';
  since?: Date;
  until?: Date;
  limit: number;
}

export interface BulkRetryResult {
  count: number;
  executionIds: string[];
  skipped: { executionId: string; reason: string }[];
}

/**
 * Retries the automation's failed executions started in [since, until) that have no retry yet (a failed retry is
 * itself such an execution), oldest first, up to `limit`, in one transaction. Those the run caps leave no room
 * for, or whose plan is refused (a failed node missing from the current graph), are listed as skipped.
 */
export async function retryExecutions(
  deps: EngineDeps,
  workspaceId: string,
  automationId: string,
  input: BulkRetryInput,
): Promise<BulkRetryResult> {
  const em = forkForWorkspace(deps.orm.em, workspaceId);
  const exists = await em.count(Automation, { _id: automationId });
  if (!exists) throw notFound('automation');
  let admitted = 0;
  let queued = 0;
  try {
    const out = await locked(em, automationId, async (automation) => {
      const params: unknown[] = [workspaceId, automationId];
      let range = '';
      if (input.since) {
        range += ' and e.started_at >= ?';
        params.push(input.since);
      }
      if (input.until) {
        range += ' and e.started_at < ?';
        params.push(input.until);
      }
      params.push(input.limit);
      const ids = await em.execute<{ id: string }[]>(
        `select e.id from automation_execution e where e.workspace_id = ? and e.automation_id = ? and e.status = 'failed'${range}
           and not exists (select 1 from automation_execution r where r.retry_of = e.id)
         order by e.started_at asc, e.id asc limit ?`,
        params,
      );
      const result: BulkRetryResult = { count: 0, executionIds: [], skipped: [] };
      if (!ids.length) return result;
      const idList = ids.map((r) => r.id);
      const originals = await em.find(
        AutomationExecution,
        { _id: { $in: idList } },
        { orderBy: { startedAt: 'asc', _id: 'asc' } },
      );
      const steps = await stepsOf(em, idList);
      const plans: Plan[] = [];
      for (const o of originals) {
        const p = plan(o, steps.get(o._id) ?? [], automation, input);
        if ('refused' in p) result.skipped.push({ executionId: o._id, reason: p.refused });
        else plans.push(p);
      }
      const now = new Date();
      const real = plans.filter((p) => !p.original.isTest).length;
      let room = real ? await capRoom(em, automation, now, real) : 0;
      const reason =
        room < real
          ? `retry skipped: ${capReached(automation, await windowCounts(em, automation, now), room)?.message ?? 'no room'}`
          : '';
      const admittedPlans: Plan[] = [];
      for (const p of plans) {
        if (p.original.isTest) admittedPlans.push(p);
        else if (room > 0) {
          room--;
          admittedPlans.push(p);
        } else result.skipped.push({ executionId: p.original._id, reason });
      }
      if (!admittedPlans.length) return result;
      await admitRuns(deps, workspaceId, admittedPlans.length);
      admitted = admittedPlans.length;
      for (const p of admittedPlans) {
        const row = record(em, p, `retry:${p.original._id}:1`, now);
        result.executionIds.push(row._id);
      }
      result.count = admittedPlans.length;
      await em.flush();
      await notifyQueued(em);
      return result;
    });
    queued = out.count;
    if (queued) queuedRuns.emit('queued', workspaceId);
    return out;
  } finally {
    if (admitted && !queued) releaseRuns(workspaceId, admitted);
  }
}
