/**
 * One bulk e-mail send: batches of recipients, one activity each, until none is pending. The input
 * is ids only; a batch that dies mid-send is retried and replays what already went out (every
 * recipient's send is keyed), so no recipient gets two copies, and sends what was never handed over.
 */
import { ActivityFailure, patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { createEmailBulkActivities } from './email-bulk.activities';
import type { EmailBulkWorkflowInput } from './email-bulk.messages';

type Activities = ReturnType<typeof createEmailBulkActivities>;

const { emailBulkSendBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  // The batch heartbeats every second: a killed worker is noticed in 10 s and the batch resumes on another one, which
  // sends every message the dead one never handed over (bulk-send.ts).
  heartbeatTimeout: '10 seconds',
  // A retry after a crash starts at once; an unreachable mail server is tried for about half an hour in all.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 14 },
});
const { emailBulkFinish } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 20 },
});

export async function emailBulkWorkflow(
  input: EmailBulkWorkflowInput,
): Promise<{ status: string; summary: Record<string, number> }> {
  const ids = { workspaceId: input.workspaceId, queueId: input.queueId };
  // Runs started with this patch wait on a durable timer when the mailbox's cap (maxPerHour / maxPerDay) holds
  // recipients back (BatchResult.deferredUntil); older histories replay their batches without it.
  const capWaits = patched('bulk-mailbox-cap');
  try {
    for (;;) {
      const batch = await emailBulkSendBatch(capWaits ? { ...ids, capWaits: true } : ids);
      // The last batch completed the send (runs recorded before that answer without `finished` and go on below).
      if (batch.finished) return batch.finished;
      if (batch.remaining === 0) break;
      if (capWaits && batch.deferredUntil) await sleep(Math.max(1, Date.parse(batch.deferredUntil) - Date.now()));
    }
  } catch (err) {
    const cause = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    return emailBulkFinish({ ...ids, error: `gave up after retries: ${cause}`.slice(0, 1000) });
  }
  return emailBulkFinish(ids);
}
