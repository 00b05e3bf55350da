/** The bulk e-mail workflow kind, declared in its module and named by its `workflows` (email.module.ts). */
import { defineWorkflowKind } from '../../platform/workflow-kinds';
import type { EmailBulkWorkflowInput } from './email-bulk.messages';

export interface EmailBulkMeta {
  workspaceId: string;
  queueId: string;
  accountId: string;
  recipients: number;
}

/**
 * One bulk e-mail send (`POST /emails/bulk`): ids only; the activities load subject, body and addresses from the rows.
 */
export const emailBulkKind = defineWorkflowKind<EmailBulkMeta, EmailBulkWorkflowInput>({
  kind: 'email-bulk',
  workflowType: 'emailBulkWorkflow',
  // Then (patch bulk-mailbox-cap) a batch held back by the mailbox's cap and the timer until its window.
  replayFixtures: ['email-bulk.history.json', 'email-bulk-mailbox-cap.history.json'],
  searchAttributes: (m) => ({ CrmWorkspaceId: m.workspaceId }),
  memo: (m) => ({ workspaceId: m.workspaceId, queueId: m.queueId, accountId: m.accountId, recipients: m.recipients }),
  summary: (m) =>
    `Bulk e-mail ${m.queueId} · ${m.recipients} ${m.recipients === 1 ? 'recipient' : 'recipients'} · account ${m.accountId}`,
});
