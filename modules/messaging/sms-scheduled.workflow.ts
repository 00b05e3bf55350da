/**
 * One scheduled SMS: a durable timer until sendAt, then one idempotent send activity (keyed on the
 * scheduled id, so a worker restart or a retried activity never sends twice). Cancelling the
 * workflow during the timer ends it; the API marks the row cancelled in the same request.
 */
import { ActivityFailure, isCancellation, proxyActivities, sleep } from '@temporalio/workflow';
import type { createSmsActivities } from './sms.activities';
import type { ScheduledSmsWorkflowInput } from './sms-scheduled.messages';

type Activities = ReturnType<typeof createSmsActivities>;

const { sendScheduledSms } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  // Gateway 5xx and connection refusals are retried; refusals and unknown outcomes are not thrown.
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
});
const { failScheduledSms } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 20 },
});

export async function scheduledSmsWorkflow(
  input: ScheduledSmsWorkflowInput,
): Promise<{ status: string; smsId?: string }> {
  const wait = Date.parse(input.sendAt) - Date.now();
  if (wait > 0) await sleep(wait);
  try {
    return await sendScheduledSms({ workspaceId: input.workspaceId, scheduledId: input.scheduledId });
  } catch (err) {
    if (isCancellation(err)) throw err;
    const cause = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    return failScheduledSms({
      workspaceId: input.workspaceId,
      scheduledId: input.scheduledId,
      error: `gave up after retries: ${cause}`,
    });
  }
}
