/**
 * Retries of one failing webhook delivery on durable timers (the first attempt was made by the
 * outbox subscriber): one activity per attempt, after each delay of the schedule with jitter.
 * Workflow id `webhook-delivery:<workspaceId>:<deliveryId>`; the input holds ids and delays only.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createWebhookActivities } from './webhooks.activities';
import type { WebhookRetryInput } from './webhook-delivery.messages';

const { attemptWebhookDelivery } = proxyActivities<ReturnType<typeof createWebhookActivities>>({
  // One POST is bounded to 10 s; the rest is two small queries.
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 20 },
});

export async function webhookDeliveryWorkflow(input: WebhookRetryInput): Promise<string> {
  // Math.random is deterministic in workflow code (seeded per run), so replays keep the same delays.
  const delays = input.delaysMs.map((d) => Math.max(0, Math.round(d * (1 + (Math.random() * 2 - 1) * input.jitter))));
  for (let i = 0; i < delays.length; i++) {
    await sleep(delays[i]!);
    const outcome = await attemptWebhookDelivery({
      workspaceId: input.workspaceId,
      deliveryId: input.deliveryId,
      step: i + 1,
      nextDelayMs: delays[i + 1] ?? null,
    });
    if (outcome !== 'retry') return outcome;
  }
  return 'failed';
}
