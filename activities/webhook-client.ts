/** The Temporal adapter of the webhook retry port (domain/webhooks/ports.ts). */
import { Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import { webhookDeliveryWorkflowId, type WebhookRetryPort } from '../domain/webhooks/ports';
import { webhookDeliveryKind } from '../domain/workflow-kinds';

export const WEBHOOK_DELIVERY_WORKFLOW_TYPE = webhookDeliveryKind.workflowType;

export function createWebhookRetryPort(client: Client, taskQueue: string): WebhookRetryPort {
  return {
    async startRetry(input) {
      const meta = { workspaceId: input.workspaceId, deliveryId: input.deliveryId, retries: input.delaysMs.length };
      try {
        await client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
          workflowId: webhookDeliveryWorkflowId(input.workspaceId, input.deliveryId),
          taskQueue,
          args: [input],
          // A re-delivered outbox event must not start a second retry chain for the same delivery.
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          typedSearchAttributes: Object.entries(webhookDeliveryKind.searchAttributes(meta)).map(([name, value]) => ({ key: { name, type: 'KEYWORD' as const }, value: value! })),
          memo: webhookDeliveryKind.memo(meta),
          staticSummary: webhookDeliveryKind.summary(meta),
        });
        return 'started';
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
        throw err;
      }
    },
  };
}
