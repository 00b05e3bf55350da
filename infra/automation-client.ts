/**
 * The Temporal adapter of the automation engine's WorkflowPort (domain/ stays free of Temporal).
 * Used by the API (trigger, test, cancel, webhook), the worker's outbox subscribers and the
 * activities that start executions (schedule ticks, lookup fan-out).
 */
import {
  Client,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import type { ScheduleRequest, StartWorkflowRequest, WorkflowPort } from '../domain/automations/engine/ports';
import { SCHEDULE_ID_PREFIX } from '../domain/automations/workflow-ids';

export const EXECUTION_WORKFLOW_TYPE = 'automationExecutionWorkflow';
export const SCHEDULE_TICK_WORKFLOW_TYPE = 'automationScheduleTickWorkflow';

type TickWorkflow = (input: ScheduleRequest['tickInput']) => Promise<unknown>;

/** Keyword pairs (a search attribute key is just { name, type }; the names are registered on the server). */
function typedAttributes(attrs: StartWorkflowRequest['searchAttributes']): { key: { name: string; type: 'KEYWORD' }; value: string }[] {
  return Object.entries(attrs)
    .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '')
    .map(([name, value]) => ({ key: { name, type: 'KEYWORD' as const }, value }));
}

const isGrpcNotFound = (err: unknown): boolean => (err as { code?: number })?.code === 5;

export interface WorkflowPortOptions {
  /**
   * Ask the server to hand a new execution's first workflow task straight back to this process
   * (eager workflow start). Only for a client on the NativeConnection of a Worker that polls
   * `taskQueue` in this process (the worker's outbox subscribers); elsewhere it does nothing useful.
   */
  eagerStart?: boolean;
}

export function createWorkflowPort(client: Client, taskQueue: string, opts: WorkflowPortOptions = {}): WorkflowPort {
  return {
    async startExecution(req) {
      try {
        await client.workflow.start(EXECUTION_WORKFLOW_TYPE, {
          workflowId: req.workflowId,
          taskQueue,
          args: [req.input],
          // A repeated start of the same execution (retry, re-delivery) must never run it twice.
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          typedSearchAttributes: typedAttributes(req.searchAttributes),
          memo: req.memo,
          ...(opts.eagerStart ? { requestEagerStart: true } : {}),
        });
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
        throw err;
      }
    },

    async cancel(workflowId) {
      try {
        await client.workflow.getHandle(workflowId).cancel();
        return true;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError || isGrpcNotFound(err)) return false;
        throw err;
      }
    },

    async upsertSchedule(req: ScheduleRequest) {
      const action: ScheduleOptionsStartWorkflowAction<TickWorkflow> = {
        type: 'startWorkflow',
        workflowType: SCHEDULE_TICK_WORKFLOW_TYPE,
        workflowId: req.tickWorkflowId,
        taskQueue,
        args: [req.tickInput],
        typedSearchAttributes: typedAttributes(req.searchAttributes),
      };
      const policies = {
        // A tick only starts an execution; a late one (worker down) should still run, once.
        overlap: ScheduleOverlapPolicy.BUFFER_ONE,
        catchupWindow: '10 minutes',
      } as const;
      try {
        await client.schedule.create({
          scheduleId: req.scheduleId,
          spec: req.spec,
          action,
          policies,
          memo: req.memo,
          typedSearchAttributes: typedAttributes(req.searchAttributes),
        });
        return 'created';
      } catch (err) {
        if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      }
      await client.schedule.getHandle(req.scheduleId).update((prev): ScheduleUpdateOptions<ScheduleOptionsStartWorkflowAction<TickWorkflow>> => ({
        spec: req.spec,
        action,
        policies,
        state: { paused: false, note: prev.state.note },
      }));
      return 'updated';
    },

    async listScheduleIds() {
      const ids: string[] = [];
      for await (const s of client.schedule.list({ pageSize: 1000 })) if (s.scheduleId.startsWith(`${SCHEDULE_ID_PREFIX}:`)) ids.push(s.scheduleId);
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
