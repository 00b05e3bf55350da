/**
 * Starting an execution: the Postgres row (graph snapshot, run caps, counters) first, in one
 * transaction that locks the automation row, then the Temporal workflow. Both halves are
 * idempotent on (automationId, triggerKey), so a retried start never runs twice.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { mapLimited } from '../../../platform/shared/concurrency';
import { AutomationExecution } from '../automation.entity';
import { automationExecutionKind } from '../automation-execution.kind';
import { startForRow } from '../../../platform/workflow-port';
import { queuedRuns } from '../../../platform/intake/queue-signal';
import { redactNodeSecrets } from '../secrets';
import type { EngineDeps } from './ports';
import type { ExecutionWorkflowInput } from '../automation-execution.messages';
import { ENGINE_VERSION, type StartPoint } from './types.pure';
import { workspaceInfo } from './workspace';
import { resumeOf } from './retry-context';
import { createRoots, createChild, view, type Created } from './rows';
import type { StartRequest, StartResult } from './start-types';

export type { StartRequest, StartResult, StartedExecution } from './start-types';

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
  opts: { retryable: boolean; lane?: 'main' | 'backlog' } = { retryable: true },
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
    ...resumeOf(system),
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
      ...(opts.lane ? { lane: opts.lane } : {}),
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
 * event, and the deterministic triggerKey makes the retry pick up the same row). Beyond `room` (the workspace's free
 * room under its cap on runs in flight, engine/in-flight.ts) the runs are recorded as `queued` for the starter.
 */
export async function startExecutions(
  deps: EngineDeps,
  workspaceId: string,
  reqs: readonly StartRequest[],
  opts: { room?: number } = {},
): Promise<StartOutcome[]> {
  const outcomes: StartOutcome[] = new Array(reqs.length);
  if (reqs.length === 0) return outcomes;
  if (reqs.some((r) => r.workspaceId !== workspaceId || r.parentExecutionId))
    throw new Error('startExecutions takes root starts of one workspace');
  const em = forkForWorkspace(deps.orm.em, workspaceId);
  const { timezone } = await workspaceInfo(em, workspaceId);
  // The first `room` requests start now; the rest are recorded as queued for the starter (engine/in-flight.ts).
  const room = opts.room ?? Number.POSITIVE_INFINITY;
  const groups = new Map<string, { automationId: string; queued: boolean; indexes: number[] }>();
  reqs.forEach((r, i) => {
    const queued = i >= room;
    const key = `${r.automationId}|${queued}`;
    const group = groups.get(key) ?? { automationId: r.automationId, queued, indexes: [] };
    group.indexes.push(i);
    groups.set(key, group);
  });
  const toLaunch: { index: number; created: Created }[] = [];
  const now = new Date();
  let queuedAny = false;
  for (const { automationId, queued, indexes } of groups.values()) {
    try {
      const created = await createRoots(
        em.fork(),
        automationId,
        indexes.map((i) => reqs[i]!),
        now,
        { queued },
      );
      created.forEach((c, k) => {
        const index = indexes[k]!;
        if ('skipped' in c) outcomes[index] = skippedResult(deps, reqs[index]!, c.skipped);
        else if (queued && !c.existing) {
          queuedAny = true;
          outcomes[index] = { status: 'started', execution: view(c.execution) };
        } else toLaunch.push({ index, created: c });
      });
    } catch (error) {
      for (const i of indexes) outcomes[i] = { status: 'error', error };
    }
  }
  // A starter in this process hears it at once (the queuing transaction also sent a NOTIFY for the others).
  if (queuedAny) queuedRuns.emit('queued', workspaceId);
  await mapLimited(toLaunch, LAUNCH_CONCURRENCY, async ({ index, created }) => {
    try {
      outcomes[index] = await launch(deps, em, reqs[index]!, created, timezone);
    } catch (error) {
      outcomes[index] = { status: 'error', error };
    }
  });
  return outcomes;
}
