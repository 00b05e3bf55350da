/**
 * The webhook delivery retry workflow's contract (webhook-delivery.workflow.ts): its input;
 * it has no signals, updates or queries. Workflow-safe: types only.
 */

/** Ids and delays only: no body, URL or secret (the activity reads them from the rows). */
export interface WebhookRetryInput {
  workspaceId: string;
  deliveryId: string;
  /** Delays before each remaining attempt (the workflow adds jitter). */
  delaysMs: number[];
  jitter: number;
}
