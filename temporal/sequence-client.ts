/**
 * The Temporal adapter of the sequence engine's port (domain/sequences/ports.ts): starts
 * enrollment workflows, sends pause/resume/unenroll updates and the exit signal.
 */
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { SequenceWorkflowPort, UpdateOutcome } from '../domain/sequences/ports';
import { ENROLLMENT_WORKFLOW_TYPE } from '../domain/sequences/workflow-ids';

const isGrpcNotFound = (err: unknown): boolean => (err as { code?: number })?.code === 5;
/** Updates to a closed workflow fail with "workflow execution already completed". */
const isClosed = (err: unknown): boolean => /already completed|not found/i.test((err as Error)?.message ?? '');

export interface SequencePortOptions { eagerStart?: boolean }

export function createSequenceWorkflowPort(client: Client, taskQueue: string, opts: SequencePortOptions = {}): SequenceWorkflowPort {
  const update = async (workflowId: string, name: 'pause' | 'resume' | 'unenroll', args: unknown[]): Promise<UpdateOutcome> => {
    try {
      await client.workflow.getHandle(workflowId).executeUpdate(name, { args } as never);
      return 'ok';
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) return 'invalid_state';
      if (err instanceof WorkflowNotFoundError || isGrpcNotFound(err) || isClosed(err)) return 'not_running';
      throw err;
    }
  };
  return {
    async start(req) {
      try {
        await client.workflow.start(ENROLLMENT_WORKFLOW_TYPE, {
          workflowId: req.workflowId,
          taskQueue,
          args: [req.input],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          typedSearchAttributes: Object.entries(req.searchAttributes).map(([name, value]) => ({ key: { name, type: 'KEYWORD' as const }, value })),
          memo: req.memo,
          staticSummary: req.summary,
          ...(opts.eagerStart ? { requestEagerStart: true } : {}),
        });
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
        throw err;
      }
    },
    pause: (workflowId, args) => update(workflowId, 'pause', [args]),
    resume: (workflowId) => update(workflowId, 'resume', []),
    unenroll: (workflowId) => update(workflowId, 'unenroll', []),
    async exit(workflowId, reason) {
      try {
        await client.workflow.getHandle(workflowId).signal('exit', { reason });
        return true;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError || isGrpcNotFound(err) || isClosed(err)) return false;
        throw err;
      }
    },
  };
}
