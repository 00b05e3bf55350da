/** The Temporal adapter of the webhook retry port (ports.ts). */
import type { Client } from '@temporalio/client';
import type { WebhookRetryPort } from './ports';
import { webhookDeliveryKind } from './webhook-delivery.kind';
import { createWorkflowPort } from '../../platform/temporal/workflow-client';

export function createWebhookRetryPort(client: Client, taskQueue: string): WebhookRetryPort {
  const port = createWorkflowPort(client, taskQueue);
  return {
    // The port refuses a duplicate id: a re-delivered outbox event never starts a second retry chain.
    startRetry: (input) =>
      port.start({
        kind: webhookDeliveryKind,
        workspaceId: input.workspaceId,
        id: input.deliveryId,
        input,
        meta: { workspaceId: input.workspaceId, deliveryId: input.deliveryId, retries: input.delaysMs.length },
      }),
  };
}
