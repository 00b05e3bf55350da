/** The Temporal adapter of SmsSchedulerPort (domain/messaging/sms-workflow-ids.ts): used by the API. */
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/client';
import { SCHEDULED_SMS_WORKFLOW_TYPE, scheduledSmsWorkflowId, type SmsSchedulerPort } from '../domain/messaging/sms-workflow-ids';
import { scheduledSmsKind } from '../domain/workflow-kinds';

const isGrpcNotFound = (err: unknown): boolean => (err as { code?: number })?.code === 5;

export function createSmsScheduler(client: Client, taskQueue: string): SmsSchedulerPort {
  return {
    async start(input) {
      try {
        await client.workflow.start(SCHEDULED_SMS_WORKFLOW_TYPE, {
          workflowId: scheduledSmsWorkflowId(input.workspaceId, input.scheduledId),
          taskQueue,
          args: [input],
          // One workflow per scheduled SMS, ever: a repeated start never sends twice.
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          typedSearchAttributes: Object.entries(scheduledSmsKind.searchAttributes(input)).map(([name, value]) => ({ key: { name, type: 'KEYWORD' as const }, value: value! })),
          memo: scheduledSmsKind.memo(input),
          staticSummary: scheduledSmsKind.summary(input),
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
  };
}
