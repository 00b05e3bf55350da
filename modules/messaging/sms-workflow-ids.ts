/** Temporal ids of SMS workflows (DESIGN.md "Workflow ids"). Pure: workflow code may import it. */
import { scheduledSmsKind } from './sms-scheduled.kind';
import type { ScheduledSmsWorkflowInput } from './sms-scheduled.messages';

export const SCHEDULED_SMS_WORKFLOW_PREFIX = scheduledSmsKind.kind;

/** `sms-scheduled:<workspaceId>:<scheduledId>`: one workflow per scheduled SMS (the registry's builder). */
export const scheduledSmsWorkflowId = (workspaceId: string, scheduledId: string): string =>
  scheduledSmsKind.workflowId(workspaceId, scheduledId);

/** What the API needs from the workflow engine for scheduled SMS (adapter: sms-client.ts). */
export interface SmsSchedulerPort {
  /** Starts the timer workflow; an existing one with that id is success. */
  start(input: ScheduledSmsWorkflowInput): Promise<'started' | 'already_started'>;
  /** Requests cancellation; false when no such running workflow exists. */
  cancel(workflowId: string): Promise<boolean>;
}
