/** The Temporal adapter of the webhook retry port (domain/webhooks/ports.ts). */
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import { webhookDeliveryWorkflowId, type WebhookRetryPort } from '../domain/webhooks/ports';

export const WEBHOOK_DELIVERY_WORKFLOW_TYPE = 'webhookDeliveryWorkflow';

export function createWebhookRetryPort(client: Client, taskQueue: string): WebhookRetryPort {
  return {
    async startRetry(input) {
      try {
        await client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
          workflowId: webhookDeliveryWorkflowId(input.workspaceId, input.deliveryId),
          taskQueue,
          args: [input],
          // A re-delivered outbox event must not start a second retry chain for the same delivery.
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          typedSearchAttributes: [{ key: { name: 'CrmWorkspaceId', type: 'KEYWORD' }, value: input.workspaceId }],
        });
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
        throw err;
      }
    },
  };
}
