/**
 * Read side of automations: the list, workspace stats, and the execution mirror (list and one
 * run with its step log). Postgres holds what the API shows; no read touches Temporal.
 */
import { maskConfigSecrets, maskNodeSecrets } from './secrets';
import type { Ctx } from '../../platform/context';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { Automation, AutomationExecution, AutomationStep, type ExecutionStatus } from './automation.entity';
import { getAutomation, serializeAutomation } from './automations.service';
import type { ExecutionSummaryView, ExecutionView, StepView } from './automations.views';
import { getRecord } from '../../platform/shared/record-service';
import { plainOf } from '../../platform/shared/views';

export const EXECUTION_STATUSES = [
  'queued',
  'running',
  'completed',
  'failed',
  'cancelled',
] as const satisfies readonly ExecutionStatus[];

export interface AutomationListQuery extends PageRequest {
  isActive?: boolean;
}

export async function listAutomations(ctx: Ctx, query: AutomationListQuery) {
  const where = query.isActive === undefined ? {} : { isActive: query.isActive };
  const { items, total } = await findPage(ctx.em, Automation, where, query, { createdAt: 'desc' });
  return { items: items.map(serializeAutomation), total };
}

export interface AutomationStats {
  totalAutomations: number;
  activeAutomations: number;
  totalExecutions: number;
  executionsByStatus: Record<ExecutionStatus, number>;
  /** Mean durationMs of finished executions (completed, failed, cancelled); null when none. */
  avgDuration: number | null;
}

/** Test runs and fan-out children count too: each is an execution the workspace ran. */
export async function getAutomationStats(ctx: Ctx): Promise<AutomationStats> {
  const ws = ctx.actor.workspaceId;
  // Raw aggregates bypass the tenant filter, so each names the workspace itself.
  const [defs] = await ctx.em.execute<{ total: number; active: number }[]>(
    'select count(*)::int as total, (count(*) filter (where is_active))::int as active from automation where workspace_id = ?',
    [ws],
  );
  const rows = await ctx.em.execute<{ status: string; n: number; duration_sum: string | null; duration_n: number }[]>(
    `select status, count(*)::int as n, sum(duration_ms)::bigint as duration_sum, count(duration_ms)::int as duration_n
       from automation_execution where workspace_id = ? group by status`,
    [ws],
  );
  const executionsByStatus = Object.fromEntries(EXECUTION_STATUSES.map((s) => [s, 0])) as Record<
    ExecutionStatus,
    number
  >;
  let totalExecutions = 0;
  let durationSum = 0;
  let durationCount = 0;
  for (const row of rows) {
    totalExecutions += row.n;
    if ((EXECUTION_STATUSES as readonly string[]).includes(row.status))
      executionsByStatus[row.status as ExecutionStatus] = row.n;
    if (row.status !== 'running' && row.status !== 'queued') {
      durationSum += Number(row.duration_sum ?? 0);
      durationCount += row.duration_n;
    }
  }
  return {
    totalAutomations: defs?.total ?? 0,
    activeAutomations: defs?.active ?? 0,
    totalExecutions,
    executionsByStatus,
    avgDuration: durationCount ? Math.round(durationSum / durationCount) : null,
  };
}

// What an execution summary and a step show, in the order they show it (`retries` and `input` between the two parts).
const EXECUTION_SUMMARY_FIELDS = [
  '_id',
  'automationId',
  'automationName',
  'automationVersion',
  'status',
  'triggerType',
  'entityType',
  'entityId',
  'isTest',
  'parentExecutionId',
  'retryOf',
] as const;
const EXECUTION_TIMING_FIELDS = ['workflowId', 'startedAt', 'finishedAt', 'durationMs', 'error'] as const;
const STEP_FIELDS = ['_id', 'nodeId', 'nodeType', 'actionType', 'status', 'attempt', 'startedAt', 'endedAt'] as const;
const STEP_RESULT_FIELDS = ['output', 'error', 'handle'] as const;

/** An execution without its graph snapshot and context (list rows stay small). */
export function serializeExecutionSummary(
  e: Omit<AutomationExecution, 'graph' | 'context'>,
  retries: readonly string[] = [],
): ExecutionSummaryView {
  return {
    ...plainOf(e, EXECUTION_SUMMARY_FIELDS),
    retries: [...retries],
    ...plainOf(e, EXECUTION_TIMING_FIELDS),
  };
}

export function serializeStep(s: AutomationStep): StepView {
  return {
    ...plainOf(s, STEP_FIELDS),
    // Rows written before credential headers were masked at write time are masked here too.
    input: maskConfigSecrets(s.actionType ?? null, s.input ?? null),
    ...plainOf(s, STEP_RESULT_FIELDS),
  };
}

export interface ExecutionListQuery extends PageRequest {
  status?: ExecutionStatus;
}

/** The retries of these executions (engine/retry.ts), oldest first, by the execution they retry. */
async function retriesOf(ctx: Ctx, ids: readonly string[]): Promise<Map<string, string[]>> {
  const by = new Map<string, string[]>();
  if (!ids.length) return by;
  const rows = await ctx.em.find(
    AutomationExecution,
    { retryOf: { $in: [...ids] } },
    { fields: ['_id', 'retryOf'], orderBy: { _id: 'asc' } },
  );
  for (const r of rows) by.set(r.retryOf!, [...(by.get(r.retryOf!) ?? []), r._id]);
  return by;
}

/** Newest run first. */
export async function listExecutions(ctx: Ctx, automationId: string, query: ExecutionListQuery) {
  await getAutomation(ctx, automationId);
  const where = { automationId, ...(query.status ? { status: query.status } : {}) };
  const [items, total] = await ctx.em.findAndCount(AutomationExecution, where, {
    limit: query.limit,
    offset: (query.page - 1) * query.limit,
    orderBy: { startedAt: 'desc', _id: 'desc' },
    exclude: ['graph', 'context'],
  });
  const retries = await retriesOf(
    ctx,
    items.map((e) => e._id),
  );
  return { items: items.map((e) => serializeExecutionSummary(e, retries.get(e._id))), total };
}

/** One run: summary, trigger context, the graph snapshot it ran with, and its step log in run order. */
export async function getExecution(ctx: Ctx, executionId: string): Promise<ExecutionView> {
  const e = await getRecord(ctx, AutomationExecution, executionId, 'automation execution');
  const steps = await ctx.em.find(AutomationStep, { executionId }, { orderBy: { startedAt: 'asc', _id: 'asc' } });
  const retries = await retriesOf(ctx, [executionId]);
  return {
    ...serializeExecutionSummary(e, retries.get(executionId)),
    context: e.context,
    graph: { ...e.graph, nodes: maskNodeSecrets(e.graph.nodes) },
    steps: steps.map(serializeStep),
  };
}
