/**
 * A Temporal Schedule tick of a `scheduled` automation: one activity that starts the execution
 * through the engine (caps, execution row, execution workflow), deduplicated on the tick time,
 * which the schedule appends to this workflow's id.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createAutomationActivities } from './automation.activities';
import type { AutomationScheduleTickInput } from './automation-schedule.messages';
import { scheduledTimeOfTick } from './automation-ids.pure';

const { startScheduledExecution } = proxyActivities<ReturnType<typeof createAutomationActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 20 },
});

export async function automationScheduleTickWorkflow(
  input: AutomationScheduleTickInput,
): Promise<{ status: string; executionId?: string; reason?: string }> {
  const info = workflowInfo();
  const scheduledAt = scheduledTimeOfTick(info.workflowId) ?? new Date(info.startTime.getTime()).toISOString();
  return startScheduledExecution({ workspaceId: input.workspaceId, automationId: input.automationId, scheduledAt });
}
