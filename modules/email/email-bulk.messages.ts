/**
 * The bulk e-mail workflow's contract (modules/email/email-bulk.workflow.ts): its input; it has no signals,
 * updates or queries. Workflow-safe: types only.
 */

/** Ids only: the activities load subject, body and addresses from the rows. */
export interface EmailBulkWorkflowInput {
  workspaceId: string;
  queueId: string;
}
