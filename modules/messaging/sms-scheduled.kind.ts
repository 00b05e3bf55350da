/** The scheduled SMS workflow kind, declared in its module and named by its `workflows` (messaging.module.ts). */
import { defineWorkflowKind } from '../../platform/workflow-kinds';
import type { ScheduledSmsWorkflowInput } from './sms-scheduled.messages';

export interface ScheduledSmsMeta {
  workspaceId: string;
  scheduledId: string;
  /** ISO time the SMS is due. */
  sendAt: string;
}

/** One timer workflow per scheduled SMS (`POST /sms/schedule`); its input holds ids and the time only. */
export const scheduledSmsKind = defineWorkflowKind<ScheduledSmsMeta, ScheduledSmsWorkflowInput>({
  kind: 'sms-scheduled',
  workflowType: 'scheduledSmsWorkflow',
  replayFixtures: ['sms-scheduled.history.json'],
  searchAttributes: (m) => ({ CrmWorkspaceId: m.workspaceId }),
  memo: (m) => ({ workspaceId: m.workspaceId, scheduledId: m.scheduledId, sendAt: m.sendAt }),
  summary: (m) => `Scheduled SMS ${m.scheduledId} · at ${m.sendAt}`,
});
