/**
 * The scheduled SMS workflow's contract (modules/messaging/sms-scheduled.workflow.ts): its input; it has no
 * signals, updates or queries (the API cancels the run). Workflow-safe: types only.
 */

/** Workflow input: ids and the time only; the activity loads the message from Postgres. */
export interface ScheduledSmsWorkflowInput {
  workspaceId: string;
  scheduledId: string;
  sendAt: string;
}
