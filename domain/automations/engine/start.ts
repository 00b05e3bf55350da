/**
 * Starting an execution: the Postgres row (graph snapshot, run caps, counters) first, in one
 * transaction that locks the automation row, then the Temporal workflow. Both halves are
 * idempotent on (automationId, triggerKey), so a retried start never runs twice.
 */
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../errors';
import { newId } from '../../ids';
import { forkForWorkspace } from '../../orm/tenant';
import { emit } from '../../outbox/emit';
import { mapLimited } from '../../shared/concurrency';
import { Automation, AutomationExecution, type ExecutionStatus } from '../automation.entity';
import { automationExecutionKind } from '../../workflow-kinds';
import { notifyQueued } from '../../intake/queue-signal';
import { startForRow } from '../../workflow-port';
import { redactNodeSecrets } from '../secrets';
import type { EngineDeps } from './ports';
import type { ExecutionWorkflowInput } from './automation-execution.messages';
import { ENGINE_VERSION, type Context, type GraphSnapshot, type StartPoint } from './types';
import { automationActor, automationActorId, workspaceInfo } from './workspace';

export interface StartRequest {
  workspaceId: string;
  automationId: string;
  triggerType: string;
  /** Dedupe key: outbox event id, webhook delivery id, `tick:<time>`, `api:<id>`, fan-out key. */
  triggerKey: string;
  entityType?: string | null;
  entityId?: string | null;
  context: Context;
  isTest?: boolean;
  /** Fan-out children: the parent's run, graph snapshot and the lookup node they continue behind. */
  parentExecutionId?: string | null;
  graph?: GraphSnapshot;
  startAt?: StartPoint | null;
  /** Automations whose runs caused this start (loop guard), without this one. */
  chain?: string[];
  /**
   * Callers that retry (outbox, activities) keep the row running when Temporal refuses the start
   * and rethrow, so the retry starts the same row; the API marks it failed and answers 503.
   */
  retryable?: boolean;
  now?: Date;
}

export interface StartedExecution {
  _id: string;
  workflowId: string;
  status: ExecutionStatus;
}

export type StartResult =
  { status: 'started' | 'existing'; execution: StartedExecution } | { status: 'skipped'; reason: string };

const WINDOWS = [
  { cap: 'maxRunsPerHour', ms: 3_600_000, label: 'hour' },
  { cap: 'maxRunsPerDay', ms: 86_400_000, label: 'day' },
  { cap: 'maxRunsPerWeek', ms: 7 * 86_400_000, label: 'week' },
] as const;
type CapKey = (typeof WINDOWS)[number]['cap'];

/**
 * Runs counted against each cap's window: real (not test) top-level executions, read through the
 * (workspace, automation, status, startedAt) index; `limit cap` bounds the scan. The automation
 * row lock held by the caller makes count-then-insert race-free.
 */
async function windowCounts(em: EntityManager, automation: Automation, now: Date): Promise<Map<CapKey, number>> {
  const counts = new Map<CapKey, number>();
  for (const w of WINDOWS) {
    const cap = automation.rateLimits?.[w.cap] ?? 0;
    if (!cap) continue;
    const rows = await em.execute<{ n: number }[]>(
      `select count(*)::int as n from (select 1 from automation_execution
         where workspace_id = ? and automation_id = ? and started_at > ? and is_test = false and parent_execution_id is null limit ?) t`,
      [automation.workspaceId, automation._id, new Date(now.getTime() - w.ms), cap],
    );
    counts.set(w.cap, rows[0]?.n ?? 0);
  }
  return counts;
}

/** The first cap that `extra` more runs (started in this batch) would exceed, as a skip reason. */
function capReached(automation: Automation, counts: Map<CapKey, number>, extra: number): string | null {
  for (const w of WINDOWS) {
    const cap = automation.rateLimits?.[w.cap] ?? 0;
    const n = (counts.get(w.cap) ?? 0) + extra;
    if (cap && n >= cap) return `${w.cap} reached (${n} runs in the last ${w.label})`;
  }
  return null;
}

const view = (e: AutomationExecution): StartedExecution => ({ _id: e._id, workflowId: e.workflowId, status: e.status });

export interface Created {
  execution: AutomationExecution;
  automationName: string;
  actorUserId: string;
  existing: boolean;
}

/**
 * Root starts of one automation (one request, or every start of an outbox batch): lock the
 * automation once, dedupe on triggerKey, apply the caps and counters in request order, insert the
 * rows; all in one transaction. Returns one outcome per request, in order.
 */
export async function createRoots(
  em: EntityManager,
  automationId: string,
  reqs: readonly StartRequest[],
  batchNow: Date,
  opts: { queued?: boolean } = {},
): Promise<(Created | { skipped: string })[]> {
  await em.begin();
  try {
    const automation = await em.findOne(Automation, { _id: automationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!automation) throw notFound('automation');
    const keys = [...new Set(reqs.map((r) => r.triggerKey))];
    const found = await em.find(AutomationExecution, { automationId: automation._id, triggerKey: { $in: keys } });
    const byKey = new Map(found.map((e) => [e.triggerKey, e]));
    const actorUserId = await automationActorId(em, automation.createdBy);
    const capped = automation.isActive && WINDOWS.some((w) => automation.rateLimits?.[w.cap]);
    const counts = capped ? await windowCounts(em, automation, batchNow) : new Map<CapKey, number>();
    let counted = 0;
    const graph: GraphSnapshot = {
      nodes: automation.nodes,
      edges: automation.edges,
      executionSettings: automation.executionSettings,
    };
    const out: (Created | { skipped: string })[] = [];
    for (const req of reqs) {
      const now = req.now ?? batchNow;
      const existing = byKey.get(req.triggerKey);
      if (existing) {
        out.push({ execution: existing, automationName: automation.name, actorUserId, existing: true });
        continue;
      }
      if (!req.isTest) {
        const reason = automation.isActive ? capReached(automation, counts, counted) : 'automation is inactive';
        if (reason) {
          if (automation.isActive) {
            automation.skippedRuns += 1;
            automation.lastSkipReason = reason.slice(0, 300);
            automation.lastSkippedAt = now;
          }
          out.push({ skipped: reason });
          continue;
        }
        counted += 1;
        automation.totalRuns += 1;
        const max = automation.rateLimits?.maxTotalRuns ?? 0;
        if (max > 0 && automation.totalRuns >= max) {
          automation.isActive = false;
          automation.deactivatedReason = `maxTotalRuns reached (${automation.totalRuns} runs)`;
          // The schedule subscriber removes a scheduled automation's Temporal Schedule on this event.
          emit(
            { em, actor: automationActor(automation.workspaceId, actorUserId) },
            {
              type: 'automation_changed',
              entityType: 'automation',
              entityId: automation._id,
              payload: {
                automation: { _id: automation._id, isActive: false, deactivatedReason: automation.deactivatedReason },
                action: 'deactivated',
              },
            },
          );
        }
      }
      const execution = newRow(em, req, {
        automationName: automation.name,
        version: automation.version,
        graph,
        now,
        status: opts.queued ? 'queued' : 'running',
      });
      byKey.set(req.triggerKey, execution);
      out.push({ execution, automationName: automation.name, actorUserId, existing: false });
    }
    await em.flush();
    if (opts.queued && out.some((o) => 'execution' in o && !o.existing)) await notifyQueued(em);
    await em.commit();
    return out;
  } catch (err) {
    await em.rollback();
    throw err;
  }
}

/**
 * Fan-out children skip the automation lock (a thousand children would queue on it), the caps
 * and the counters: they are part of their parent's run. A share lock on the parent row orders
 * them against a cancel, which flips the parent's status first.
 */
async function createChild(em: EntityManager, req: StartRequest, now: Date): Promise<Created | { skipped: string }> {
  const automation = await em.findOne(Automation, { _id: req.automationId });
  if (!automation) throw notFound('automation');
  const actorUserId = await automationActorId(em, automation.createdBy);
  const found = await em.findOne(AutomationExecution, { automationId: automation._id, triggerKey: req.triggerKey });
  if (found) return { execution: found, automationName: automation.name, actorUserId, existing: true };
  await em.begin();
  try {
    const parent = await em.execute<{ status: string }[]>(
      `select status from automation_execution where id = ? and workspace_id = ? for share`,
      [req.parentExecutionId, req.workspaceId],
    );
    // A parent still `queued` runs already: the starter records its start only after starting it.
    if (parent[0]?.status !== 'running' && parent[0]?.status !== 'queued') {
      await em.commit();
      return { skipped: `parent execution is ${parent[0]?.status ?? 'missing'}` };
    }
    const graph = req.graph ?? {
      nodes: automation.nodes,
      edges: automation.edges,
      executionSettings: automation.executionSettings,
    };
    const execution = newRow(em, req, {
      automationName: automation.name,
      version: automation.version,
      graph,
      now,
      status: 'running',
    });
    await em.flush();
    await em.commit();
    return { execution, automationName: automation.name, actorUserId, existing: false };
  } catch (err) {
    await em.rollback();
    if (err instanceof UniqueConstraintViolationException) {
      const again = await forkForWorkspace(em, req.workspaceId).findOne(AutomationExecution, {
        automationId: automation._id,
        triggerKey: req.triggerKey,
      });
      if (again) return { execution: again, automationName: automation.name, actorUserId, existing: true };
    }
    throw err;
  }
}

/** The row's context: loop guard and fan-out origin travel in it, so a re-start rebuilds the same input. */
export function rowContext(req: StartRequest, executionId: string): Context {
  const system = (req.context.system && typeof req.context.system === 'object' ? req.context.system : {}) as Record<
    string,
    unknown
  >;
  return {
    ...req.context,
    system: {
      ...system,
      executionId,
      automationId: req.automationId,
      ...(req.chain?.length ? { automationChain: req.chain } : {}),
      ...(req.startAt ? { startAt: req.startAt } : {}),
    },
  };
}

function newRow(
  em: EntityManager,
  req: StartRequest,
  meta: { automationName: string; version: number; graph: GraphSnapshot; now: Date; status: ExecutionStatus },
): AutomationExecution {
  const _id = newId(meta.now);
  const context = rowContext(req, _id);
  const row = em.create(AutomationExecution, {
    _id,
    workspaceId: req.workspaceId,
    createdAt: meta.now,
    updatedAt: meta.now,
    automationId: req.automationId,
    automationName: meta.automationName,
    automationVersion: meta.version,
    graph: meta.graph,
    status: meta.status,
    triggerType: req.triggerType.slice(0, 60),
    triggerKey: req.triggerKey.slice(0, 100),
    entityType: req.entityType ?? null,
    entityId: req.entityId ?? null,
    context,
    isTest: Boolean(req.isTest),
    workflowId: automationExecutionKind.workflowId(req.workspaceId, _id),
    parentExecutionId: req.parentExecutionId ?? null,
    startedAt: meta.now,
    finishedAt: null,
    durationMs: null,
    error: null,
  });
  em.persist(row);
  return row;
}

/** The workflow start for a row (new or found running): same id, same input, so it is idempotent. */
export type StartableRow = Pick<
  AutomationExecution,
  | '_id'
  | 'workspaceId'
  | 'automationId'
  | 'graph'
  | 'context'
  | 'isTest'
  | 'triggerType'
  | 'entityType'
  | 'entityId'
  | 'parentExecutionId'
>;

export async function startWorkflowFor(
  deps: EngineDeps,
  row: StartableRow,
  meta: { automationName: string; actorUserId: string; timezone: string },
  opts: { retryable: boolean } = { retryable: true },
): Promise<void> {
  const system = (row.context.system ?? {}) as Record<string, unknown>;
  const { timezone } = meta;
  const input: ExecutionWorkflowInput = {
    workspaceId: row.workspaceId,
    executionId: row._id,
    automationId: row.automationId,
    // Secrets stay in the row's graph (Postgres); the activities read them from there.
    graph: { ...row.graph, nodes: redactNodeSecrets(row.graph.nodes) },
    context: row.context,
    isTest: row.isTest,
    actorUserId: meta.actorUserId,
    timezone,
    chain: [...(Array.isArray(system.automationChain) ? (system.automationChain as string[]) : []), row.automationId],
    startAt: (system.startAt as StartPoint | undefined) ?? null,
    engineVersion: ENGINE_VERSION,
    ...(deps.retryIntervalMs ? { retryIntervalMs: deps.retryIntervalMs } : {}),
  };
  await startForRow(
    deps.workflows,
    {
      kind: automationExecutionKind,
      workspaceId: row.workspaceId,
      id: row._id,
      input,
      meta: {
        workspaceId: row.workspaceId,
        executionId: row._id,
        automationId: row.automationId,
        automationName: meta.automationName,
        triggerType: row.triggerType,
        entityType: row.entityType,
        entityId: row.entityId,
        isTest: row.isTest,
        parentExecutionId: row.parentExecutionId,
      },
    },
    {
      log: deps.log,
      retryable: opts.retryable,
      what: `the automation run (execution ${row._id} was recorded as failed)`,
      markNotStarted: async (reason) => {
        await forkForWorkspace(deps.orm.em, row.workspaceId).nativeUpdate(
          AutomationExecution,
          { _id: row._id, status: { $in: ['queued', 'running'] } },
          { status: 'failed', error: reason, finishedAt: new Date() },
        );
      },
    },
  );
}

/**
 * Starts the workflow of a created (or found running) row; what happens when Temporal refuses it depends on the caller.
 */
async function launch(
  deps: EngineDeps,
  em: EntityManager,
  req: StartRequest,
  created: Created,
  timezone: string,
): Promise<StartResult> {
  const { execution } = created;
  if (created.existing && execution.status !== 'running') return { status: 'existing', execution: view(execution) };
  await startWorkflowFor(deps, execution, { ...created, timezone }, { retryable: Boolean(req.retryable) });
  if (req.parentExecutionId && !created.existing) {
    // A cancel that flipped this child's row after its insert may have missed its workflow.
    const now2 = await em
      .fork()
      .findOne(AutomationExecution, { _id: execution._id }, { fields: ['status'], filters: false });
    if (now2?.status === 'cancelled') await deps.workflows.cancel(execution.workflowId);
  }
  return { status: created.existing ? 'existing' : 'started', execution: view(execution) };
}

function skippedResult(deps: EngineDeps, req: StartRequest, reason: string): StartResult {
  deps.log.info({ automationId: req.automationId, triggerKey: req.triggerKey, reason }, 'automation start skipped');
  return { status: 'skipped', reason };
}

/**
 * Creates the execution (or finds the one this triggerKey already started) and starts its
 * workflow. Skips, with the reason recorded on the automation, when the automation is inactive
 * or a run cap is reached; test runs ignore both (they neither count nor deactivate).
 */
export async function startExecution(deps: EngineDeps, req: StartRequest): Promise<StartResult> {
  const em = forkForWorkspace(deps.orm.em, req.workspaceId);
  const now = req.now ?? new Date();
  const created = req.parentExecutionId
    ? await createChild(em, req, now)
    : (await createRoots(em, req.automationId, [req], now))[0]!;
  if ('skipped' in created) return skippedResult(deps, req, created.skipped);
  const { timezone } = await workspaceInfo(em, req.workspaceId);
  return launch(deps, em, req, created, timezone);
}

export type StartOutcome = StartResult | { status: 'error'; error: unknown };

/** Workflow starts of one batch in flight at once (each is one gRPC call to Temporal). */
const LAUNCH_CONCURRENCY = 32;

/**
 * Root starts of an outbox batch, all in one workspace: one transaction per automation (one lock,
 * one dedupe query, one cap count for all its starts), then the workflow starts in parallel. The
 * outcomes are in request order; an error fails only its own request (it is retried with its
 * event, and the deterministic triggerKey makes the retry pick up the same row).
 */
export async function startExecutions(
  deps: EngineDeps,
  workspaceId: string,
  reqs: readonly StartRequest[],
): Promise<StartOutcome[]> {
  const outcomes: StartOutcome[] = new Array(reqs.length);
  if (reqs.length === 0) return outcomes;
  if (reqs.some((r) => r.workspaceId !== workspaceId || r.parentExecutionId))
    throw new Error('startExecutions takes root starts of one workspace');
  const em = forkForWorkspace(deps.orm.em, workspaceId);
  const { timezone } = await workspaceInfo(em, workspaceId);
  const byAutomation = new Map<string, number[]>();
  reqs.forEach((r, i) => {
    const indexes = byAutomation.get(r.automationId) ?? [];
    indexes.push(i);
    byAutomation.set(r.automationId, indexes);
  });
  const toLaunch: { index: number; created: Created }[] = [];
  const now = new Date();
  for (const [automationId, indexes] of byAutomation) {
    try {
      const created = await createRoots(
        em.fork(),
        automationId,
        indexes.map((i) => reqs[i]!),
        now,
      );
      created.forEach((c, k) => {
        const index = indexes[k]!;
        if ('skipped' in c) outcomes[index] = skippedResult(deps, reqs[index]!, c.skipped);
        else toLaunch.push({ index, created: c });
      });
    } catch (error) {
      for (const i of indexes) outcomes[i] = { status: 'error', error };
    }
  }
  await mapLimited(toLaunch, LAUNCH_CONCURRENCY, async ({ index, created }) => {
    try {
      outcomes[index] = await launch(deps, em, reqs[index]!, created, timezone);
    } catch (error) {
      outcomes[index] = { status: 'error', error };
    }
  });
  return outcomes;
}
