/**
 * The execution rows of a start: run caps per window, the root rows of a trigger (one transaction that locks the
 * automation row) and fan-out children, each idempotent on (automationId, triggerKey). Split from engine/start.ts,
 * which starts their workflows.
 */
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../../platform/errors';
import { newId } from '../../../platform/ids';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { emit } from '../../../platform/outbox/emit';
import { Automation, AutomationExecution, type ExecutionStatus } from '../automation.entity';
import { automationExecutionKind } from '../automation-execution.kind';
import { notifyQueued } from '../../../platform/intake/queue-signal';
import { type Context, type GraphSnapshot } from './types.pure';
import { automationActor, automationActorId } from './workspace';
import type { StartRequest, StartedExecution } from './start-types';
import { insertSkips, skipIdentity, type SkipRecord } from './skips';

const WINDOWS = [
  { cap: 'maxRunsPerHour', ms: 3_600_000, label: 'hour' },
  { cap: 'maxRunsPerDay', ms: 86_400_000, label: 'day' },
  { cap: 'maxRunsPerWeek', ms: 7 * 86_400_000, label: 'week' },
] as const;
export type CapKey = (typeof WINDOWS)[number]['cap'];

/**
 * Runs counted against each cap's window: real (not test) top-level executions, read through the
 * (workspace, automation, status, startedAt) index; `limit cap` bounds the scan. The automation
 * row lock held by the caller makes count-then-insert race-free.
 */
export async function windowCounts(em: EntityManager, automation: Automation, now: Date): Promise<Map<CapKey, number>> {
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

/** The first cap that `extra` more runs (started in this batch) would exceed: the skip reason and its values. */
export function capReached(
  automation: Automation,
  counts: Map<CapKey, number>,
  extra: number,
): { message: string; details: Record<string, unknown> } | null {
  for (const w of WINDOWS) {
    const cap = automation.rateLimits?.[w.cap] ?? 0;
    const n = (counts.get(w.cap) ?? 0) + extra;
    if (cap && n >= cap)
      return {
        message: `${w.cap} reached (${n} runs in the last ${w.label})`,
        details: { cap: w.cap, limit: cap, runs: n },
      };
  }
  return null;
}

const skipOf = (
  req: StartRequest,
  now: Date,
  reason: SkipRecord['reason'],
  message: string,
  details: Record<string, unknown>,
): SkipRecord => ({
  ...skipIdentity(req),
  reason,
  message,
  details,
  at: now,
});

export const view = (e: AutomationExecution): StartedExecution => ({
  _id: e._id,
  workflowId: e.workflowId,
  status: e.status,
});

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
    // Recorded in this transaction, in one statement (issue 27: why a run did not start).
    const skips: SkipRecord[] = [];
    let deactivatedHere = false;
    for (const req of reqs) {
      const now = req.now ?? batchNow;
      const existing = byKey.get(req.triggerKey);
      if (existing) {
        skips.push(
          skipOf(req, now, 'duplicate', 'this trigger key already recorded a run', {
            executionId: existing._id,
            status: existing.status,
          }),
        );
        out.push({ execution: existing, automationName: automation.name, actorUserId, existing: true });
        continue;
      }
      if (!req.isTest) {
        const cap = automation.isActive ? capReached(automation, counts, counted) : null;
        if (!automation.isActive) {
          skips.push(
            deactivatedHere
              ? skipOf(req, now, 'run_cap', automation.deactivatedReason ?? 'maxTotalRuns reached', {
                  cap: 'maxTotalRuns',
                  limit: automation.rateLimits?.maxTotalRuns ?? null,
                  runs: automation.totalRuns,
                })
              : skipOf(req, now, 'inactive', 'automation is inactive', {
                  isActive: false,
                  deactivatedReason: automation.deactivatedReason ?? null,
                }),
          );
          out.push({ skipped: 'automation is inactive' });
          continue;
        }
        if (cap) {
          automation.skippedRuns += 1;
          automation.lastSkipReason = cap.message.slice(0, 300);
          automation.lastSkippedAt = now;
          skips.push(skipOf(req, now, 'run_cap', cap.message, cap.details));
          out.push({ skipped: cap.message });
          continue;
        }
        counted += 1;
        automation.totalRuns += 1;
        const max = automation.rateLimits?.maxTotalRuns ?? 0;
        if (max > 0 && automation.totalRuns >= max) {
          automation.isActive = false;
          deactivatedHere = true;
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
    await insertSkips(em, skips);
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
export async function createChild(
  em: EntityManager,
  req: StartRequest,
  now: Date,
): Promise<Created | { skipped: string }> {
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
