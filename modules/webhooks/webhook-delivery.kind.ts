/**
 * The webhook delivery workflow kind (domain/workflow-kinds.ts `defineWorkflowKind`), declared in its module and
 * named by the module's `workflows` (webhooks.module.ts).
 */
import { defineWorkflowKind } from '../../platform/workflow-kinds';
import type { WebhookRetryInput } from './webhook-delivery.messages';

export interface WebhookDeliveryMeta {
  workspaceId: string;
  deliveryId: string;
  /** Attempts left after the failed first one. */
  retries: number;
}

/** The durable retries of one failing webhook delivery (timers between attempts; ids only, no body or secret). */
export const webhookDeliveryKind = defineWorkflowKind<WebhookDeliveryMeta, WebhookRetryInput>({
  kind: 'webhook-delivery',
  workflowType: 'webhookDeliveryWorkflow',
  replayFixtures: ['webhook-delivery.history.json'],
  searchAttributes: (m) => ({ CrmWorkspaceId: m.workspaceId }),
  memo: (m) => ({ workspaceId: m.workspaceId, deliveryId: m.deliveryId, retries: m.retries }),
  summary: (m) => `Webhook delivery ${m.deliveryId} · ${m.retries} ${m.retries === 1 ? 'retry' : 'retries'} left`,
});
