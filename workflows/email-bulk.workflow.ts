/**
 * One bulk e-mail send: batches of recipients, one activity each, until none is pending. The input
 * is ids only; a batch that dies mid-send is retried and replays what already went out (every
 * recipient's send is keyed), so no recipient gets two copies.
 */
import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';

type Activities = ReturnType<typeof createActivities>;

const { emailBulkSendBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  // Each finished send heartbeats: a killed worker is noticed in seconds, not after 15 minutes.
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 12 },
});
const { emailBulkFinish } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 20 },
});

export interface EmailBulkWorkflowInput {
  workspaceId: string;
  queueId: string;
}

export async function emailBulkWorkflow(
  input: EmailBulkWorkflowInput,
): Promise<{ status: string; summary: Record<string, number> }> {
  const ids = { workspaceId: input.workspaceId, queueId: input.queueId };
  try {
    for (;;) {
      const batch = await emailBulkSendBatch(ids);
      // The last batch completed the send (runs recorded before that answer without `finished` and go on below).
      if (batch.finished) return batch.finished;
      if (batch.remaining === 0) break;
    }
  } catch (err) {
    const cause = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    return emailBulkFinish({ ...ids, error: `gave up after retries: ${cause}`.slice(0, 1000) });
  }
  return emailBulkFinish(ids);
}
