/** The Temporal adapter of SmsSchedulerPort (modules/messaging/sms-workflow-ids.ts): used by the API. */
import type { Client } from '@temporalio/client';
import type { SmsSchedulerPort } from './sms-workflow-ids';
import { scheduledSmsKind } from './sms-scheduled.kind';
import { createWorkflowPort } from '../../platform/temporal/workflow-client';

export function createSmsScheduler(client: Client, taskQueue: string): SmsSchedulerPort {
  const port = createWorkflowPort(client, taskQueue);
  return {
    // One workflow per scheduled SMS, ever: the port refuses a duplicate id, so a repeated start never sends twice.
    start: (input) =>
      port.start({ kind: scheduledSmsKind, workspaceId: input.workspaceId, id: input.scheduledId, input, meta: input }),
    cancel: (workflowId) => port.cancel(workflowId),
  };
}
