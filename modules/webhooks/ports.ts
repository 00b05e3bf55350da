/**
 * The retry engine of webhook deliveries as a port (domain/ never imports Temporal); the Temporal
 * adapter is webhook-client.ts. Inputs carry ids and delays only, never secrets or bodies.
 */
import { webhookDeliveryKind } from './webhook-delivery.kind';
import type { WebhookRetryInput } from './webhook-delivery.messages';

export interface WebhookRetryPort {
  /** Starts the delivery's retry workflow; one already started (or finished) with that id is success. */
  startRetry(input: WebhookRetryInput): Promise<'started' | 'already_started'>;
}

/** `webhook-delivery:<workspaceId>:<deliveryId>`: one retry workflow per failing delivery. Pure. */
export const webhookDeliveryWorkflowId = (workspaceId: string, deliveryId: string): string =>
  webhookDeliveryKind.workflowId(workspaceId, deliveryId);

/** The Standard Webhooks message id of a delivery: the same on every attempt and replay. */
export const webhookIdOf = (deliveryId: string): string => `msg_${deliveryId}`;
