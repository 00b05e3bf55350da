/**
 * The Temporal adapter of the domain's WorkflowPort (domain/workflow-port.ts), written once for
 * every workflow kind of domain/workflow-kinds.ts: ids, search attributes, memo and the Web UI
 * summary come from the kind. Used by the API, the worker's outbox subscribers and activities.
 */
import {
  Client,
  QueryNotRegisteredError,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleUpdateOptions,
  type UpdateDefinition,
  type Workflow,
} from '@temporalio/client';
import type { Priority } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { DomainError } from '../errors';
import type { SearchAttributes } from '../workflow-kinds';
import { isRpcUnavailable } from '../shared/unavailable';
import {
  engineCommandUnavailable,
  type CommandArg,
  type EngineCommand,
  type WorkflowDescription,
  type WorkflowPort,
  type WorkflowRunStatus,
} from '../workflow-port';

/** Keyword pairs (a search attribute key is just { name, type }; the names are registered on the server). */
function typedAttributes(attrs: SearchAttributes): { key: { name: string; type: 'KEYWORD' }; value: string }[] {
  return Object.entries(attrs)
    .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '')
    .map(([name, value]) => ({ key: { name, type: 'KEYWORD' as const }, value }));
}

const isGrpcNotFound = (err: unknown): boolean => (err as { code?: number })?.code === 5;
/** A signal or update to a closed run: "workflow execution already completed" (NOT_FOUND, sometimes wrapped). */
const isClosed = (err: unknown): boolean =>
  /workflow execution already completed/i.test(
    `${(err as Error)?.message ?? ''} ${(err as { cause?: Error })?.cause?.message ?? ''}`,
  );
const isNotFound = (err: unknown): boolean =>
  err instanceof WorkflowNotFoundError || isGrpcNotFound(err) || isClosed(err);

const STATUS: Record<string, WorkflowRunStatus> = {
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CONTINUED_AS_NEW: 'continued_as_new',
};

export interface WorkflowPortOptions {
  /**
   * Ask the server to hand a new execution's first workflow task straight back to this process
   * (eager workflow start). Only for a client on the NativeConnection of a Worker that polls
   * `taskQueue` in this process (the worker's outbox subscribers); elsewhere it does nothing useful.
   */
  eagerStart?: boolean;
  /**
   * Deadline of a workflow start (connect + RPC + the client's retries), for callers that answer a
   * user (API): a Temporal outage then fails in seconds instead of after ~20 s of retries.
   */
  startDeadlineMs?: number;
  /**
   * Deadline of signals, updates, queries, cancels and descriptions (API callers): a command not
   * confirmed in time is recorded by its signal instead (see `command`).
   */
  deadlineMs?: number;
  /** Starts carry the workspace as fairness key (default true, see fairShare); false: plain FIFO (bench baselines). */
  fairShare?: boolean;
  /**
   * Where starts of the `backlog` lane go (WorkflowStartRequest.lane; config TEMPORAL_BACKLOG_TASK_QUEUE), while the
   * queue has a poller (`backlogPolled`, re-checked every BACKLOG_POLLERS_TTL_MS): with no backlog worker running the
   * runs go to the main queue rather than wait for one. Unset: every start goes to `taskQueue`.
   */
  backlogTaskQueue?: string;
}

/** Options of the port the API answers through: every engine call bounded by ENGINE_DEADLINE_MS. */
export const apiPortOptions = (config: { engineDeadlineMs: number }): WorkflowPortOptions => ({
  startDeadlineMs: config.engineDeadlineMs,
  deadlineMs: config.engineDeadlineMs,
});

/** A command's deadline when the port has none (callers that are not the API). */
const DEFAULT_COMMAND_DEADLINE_MS = 30_000;

const isDeadline = (err: unknown): boolean =>
  err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isRpcUnavailable(err);

/**
 * `fn` under an absolute gRPC deadline, and given up at that deadline even when the client's retry
 * interceptor is still sleeping between attempts (it would overrun the deadline by its backoff).
 */
const abandoned = new Set<Promise<unknown>>();

/**
 * Waits (at most `maxMs`) for calls given up at their deadline: the client's retry interceptor may
 * still start one more attempt, which throws out of a timer once the connection is closed. Call it
 * before closing a connection these ports used.
 */
export async function settleAbandonedCalls(maxMs = 10_000): Promise<void> {
  if (!abandoned.size) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...abandoned]),
    new Promise((r) => {
      timer = setTimeout(r, maxMs);
    }),
  ]);
  clearTimeout(timer);
}

function raceDeadline<R>(client: Client, deadlineAt: number, fn: () => Promise<R>): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          Object.assign(new Error('4 DEADLINE_EXCEEDED: the workflow engine did not answer in time'), { code: 4 }),
        ),
      Math.max(0, deadlineAt - Date.now()),
    );
  });
  const call = client.withDeadline(deadlineAt, fn);
  const settled = call.then(
    () => undefined,
    () => undefined,
  );
  abandoned.add(settled);
  void settled.then(() => abandoned.delete(settled));
  return Promise.race([call, late]).finally(() => clearTimeout(timer));
}

/** A refused or impossible update, in domain terms. */
function updateError(err: unknown): unknown {
  if (isNotFound(err)) return new DomainError('not_found', 'workflow not found');
  // The update's validator (or handler) refused it: the caller's input or the run's state.
  if (err instanceof WorkflowUpdateFailedError)
    return new DomainError('invalid_state', (err.cause as Error | undefined)?.message ?? err.message);
  return err;
}

/**
 * Every workflow of a workspace carries the workspace as its Temporal fairness key (its activities and child
 * workflows inherit it): on a server with task queue fairness on (`matching.enableFairness`, which the dev server of
 * `npm start` and `npm test` sets, infra/temporal.ts), the matching service dispatches the queued tasks of different
 * workspaces in turns, so one workspace's backlog does not hold back another's runs. Without it the key is ignored
 * (plain FIFO). docs/automations.md "Fair sharing between workspaces".
 */
export const fairShare = (workspaceId: string): Priority => ({ fairnessKey: workspaceId });

/** How long the answer "the backlog task queue has a poller" is reused. */
export const BACKLOG_POLLERS_TTL_MS = 10_000;
/** A poller last seen longer ago than this is gone. */
const POLLER_SEEN_MS = 90_000;

/**
 * Whether a worker polls `taskQueue`'s workflow tasks (DescribeTaskQueue: a poller seen in the last POLLER_SEEN_MS),
 * cached for BACKLOG_POLLERS_TTL_MS; an error counts as "no" (the main queue is always served).
 */
function pollerCheck(client: Client, taskQueue: string): () => Promise<boolean> {
  let cached: { at: number; polled: Promise<boolean> } | undefined;
  return () => {
    if (cached && Date.now() - cached.at < BACKLOG_POLLERS_TTL_MS) return cached.polled;
    const polled = client.workflowService
      .describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      })
      // The server lists a poller for minutes after its worker stopped: only one seen lately counts (a live poller
      // calls again at least every long-poll, about a minute).
      .then((r) =>
        (r.pollers ?? []).some((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000 > Date.now() - POLLER_SEEN_MS),
      )
      .catch(() => false);
    cached = { at: Date.now(), polled };
    return polled;
  };
}

export function createWorkflowPort(client: Client, taskQueue: string, opts: WorkflowPortOptions = {}): WorkflowPort {
  const within = <R>(fn: () => Promise<R>): Promise<R> =>
    opts.deadlineMs ? raceDeadline(client, Date.now() + opts.deadlineMs, fn) : fn();
  const backlogQueue = opts.backlogTaskQueue && opts.backlogTaskQueue !== taskQueue ? opts.backlogTaskQueue : '';
  const backlogPolled = backlogQueue ? pollerCheck(client, backlogQueue) : async () => false;
  return {
    backlogLane: () => backlogPolled(),

    async start({ kind, workspaceId, id, input, meta, lane }) {
      const details = kind.details?.(meta);
      const backlog = lane === 'backlog' && (await backlogPolled());
      const bounded = <R>(fn: () => Promise<R>): Promise<R> =>
        opts.startDeadlineMs ? client.withDeadline(Date.now() + opts.startDeadlineMs, fn) : fn();
      try {
        await bounded(() =>
          client.workflow.start(kind.workflowType, {
            workflowId: kind.workflowId(workspaceId, id),
            taskQueue: backlog ? backlogQueue : taskQueue,
            args: [input],
            // A repeated start of the same row (retry, re-delivery) must never run it twice.
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            typedSearchAttributes: typedAttributes(kind.searchAttributes(meta)),
            memo: kind.memo(meta),
            staticSummary: kind.summary(meta),
            ...(details ? { staticDetails: details } : {}),
            // Eager only on the main queue: this process's worker polls it, another process the backlog queue.
            ...(opts.eagerStart && !backlog ? { requestEagerStart: true } : {}),
            ...(opts.fairShare === false ? {} : { priority: fairShare(workspaceId) }),
          }),
        );
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
        throw err;
      }
    },

    async signal(workflowId, signal, ...args) {
      try {
        await within(() => client.workflow.getHandle(workflowId).signal(signal, ...args));
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    },

    async update<R, Args extends unknown[]>(
      workflowId: string,
      update: UpdateDefinition<R, Args>,
      ...args: NoInfer<Args>
    ): Promise<R> {
      try {
        const handle = client.workflow.getHandle(workflowId);
        // The SDK types updates with and without arguments by two overloads; both send `args` as given.
        return await within(() =>
          handle.executeUpdate(update as unknown as UpdateDefinition<R, [unknown]>, {
            args: args as unknown as [unknown],
          }),
        );
      } catch (err) {
        throw updateError(err);
      }
    },

    async command<R, A extends CommandArg>(workflowId: string, cmd: EngineCommand<R, A>): Promise<R> {
      const handle = client.workflow.getHandle(workflowId);
      // The update's argument: what the caller asked (its arg type without the id) and the command's id.
      const arg = { ...cmd.arg, commandId: cmd.id } as A & { commandId: string };
      const update = cmd.update as UpdateDefinition<R, [A]>;
      // One deadline for the whole call: the update gets it less the time the signal may need.
      const end = Date.now() + (opts.deadlineMs ?? DEFAULT_COMMAND_DEADLINE_MS);
      // A signal to a reachable server takes milliseconds; an unreachable one fails at once.
      const signalReserve = Math.min(300, (opts.deadlineMs ?? DEFAULT_COMMAND_DEADLINE_MS) / 4);
      try {
        return await raceDeadline(client, end - signalReserve, () =>
          handle.executeUpdate(update, { args: [arg], updateId: cmd.id }),
        );
      } catch (err) {
        if (!isDeadline(err)) throw updateError(err);
      }
      // Not confirmed in time: an admitted update is not durable (it waits in the server's memory for
      // a worker), so the same command goes as a signal, which is; the workflow applies whichever comes first.
      let recorded: boolean;
      try {
        await raceDeadline(client, Math.max(end, Date.now() + 200), () =>
          handle.signal(cmd.signal, { ...arg, name: update.name }),
        );
        recorded = true;
      } catch (err) {
        if (isNotFound(err)) throw new DomainError('not_found', 'workflow not found');
        recorded = false;
      }
      throw engineCommandUnavailable(cmd.what, recorded);
    },

    async query(workflowId, query, ...args) {
      try {
        return await within(() => client.workflow.getHandle(workflowId).query(query, ...args));
      } catch (err) {
        if (isNotFound(err)) throw new DomainError('not_found', 'workflow not found');
        if (err instanceof QueryNotRegisteredError)
          throw new DomainError('validation', `the workflow has no query ${query.name}`);
        throw err;
      }
    },

    async cancel(workflowId) {
      try {
        await within(() => client.workflow.getHandle(workflowId).cancel());
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    },

    async describe(workflowId): Promise<WorkflowDescription | null> {
      try {
        const d = await within(() => client.workflow.getHandle(workflowId).describe());
        const searchAttributes: SearchAttributes = {};
        for (const pair of d.typedSearchAttributes.getAll()) {
          if (pair.key.name.startsWith('Crm') && typeof pair.value === 'string')
            (searchAttributes as Record<string, string>)[pair.key.name] = pair.value;
        }
        return {
          workflowId: d.workflowId,
          runId: d.runId,
          workflowType: d.type,
          status: STATUS[d.status.name] ?? 'unknown',
          startTime: d.startTime,
          closeTime: d.closeTime ?? null,
          searchAttributes,
          memo: d.memo ?? {},
          summary: (await d.staticSummary()) ?? null,
          details: (await d.staticDetails()) ?? null,
        };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async upsertSchedule({ scheduleId, spec, kind, workspaceId, id, input, meta }) {
      const details = kind.details?.(meta);
      const action: ScheduleOptionsStartWorkflowAction<Workflow> = {
        type: 'startWorkflow',
        workflowType: kind.workflowType,
        workflowId: kind.workflowId(workspaceId, id),
        taskQueue,
        args: [input],
        memo: kind.memo(meta),
        typedSearchAttributes: typedAttributes(kind.searchAttributes(meta)),
        staticSummary: kind.summary(meta),
        ...(details ? { staticDetails: details } : {}),
      };
      const policies = {
        // A tick only starts an execution; a late one (worker down) should still run, once.
        overlap: ScheduleOverlapPolicy.BUFFER_ONE,
        catchupWindow: '10 minutes',
      } as const;
      try {
        await client.schedule.create({
          scheduleId,
          spec,
          action,
          policies,
          memo: kind.memo(meta),
          typedSearchAttributes: typedAttributes(kind.searchAttributes(meta)),
        });
        return 'created';
      } catch (err) {
        if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      }
      await client.schedule
        .getHandle(scheduleId)
        .update((prev): ScheduleUpdateOptions<ScheduleOptionsStartWorkflowAction<Workflow>> => ({
          spec,
          action,
          policies,
          state: { paused: false, note: prev.state.note },
        }));
      return 'updated';
    },

    async listScheduleIds(prefix) {
      const ids: string[] = [];
      for await (const s of client.schedule.list({ pageSize: 1000 }))
        if (s.scheduleId.startsWith(`${prefix}:`)) ids.push(s.scheduleId);
      return ids;
    },

    async deleteSchedule(scheduleId) {
      try {
        await client.schedule.getHandle(scheduleId).delete();
        return true;
      } catch (err) {
        if (err instanceof ScheduleNotFoundError || isGrpcNotFound(err)) return false;
        throw err;
      }
    },
  };
}
