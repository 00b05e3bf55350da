import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

/** queued (workflow started or about to), sending, completed (every recipient decided), failed (could not run). */
export type EmailBulkStatus = 'queued' | 'sending' | 'completed' | 'failed';

/**
 * One bulk send (`POST /emails/bulk`): the shared subject and body plus its recipients. The
 * workflow `email-bulk:<workspaceId>:<id>` gets the ids only and its activities read these rows.
 */
export const EmailBulk = defineEntity({
  name: 'EmailBulk',
  tableName: 'email_bulk',
  indexes: workspaceIndexes('createdAt'),
  properties: {
    ...tenantProps,
    accountId: p.string().length(24),
    subject: p.string().length(1000),
    html: p.text().nullable(),
    text: p.text().nullable(),
    trackOpens: p.boolean().default(false),
    immediate: p.boolean().default(false),
    status: p.string().length(12).$type<EmailBulkStatus>(),
    total: p.integer(),
    workflowId: p.string().length(200).nullable(),
    createdBy: p.string().length(24),
    error: p.text().nullable(),
    finishedAt: p.datetime().nullable(),
    /** The attempt that may send now (a token it wrote): claims of any other attempt are refused (bulk-send.ts). */
    lease: p.string().length(24).nullable(),
  },
});
export type EmailBulk = InferEntity<typeof EmailBulk>;

/** pending → sent | failed | unknown (the send may have gone out before a crash; never sent again). */
export type BulkRecipientStatus = 'pending' | 'sent' | 'failed' | 'unknown';

/** One recipient of a bulk send; its send is idempotent on `bulk:<bulkId>:<index>`. */
export const EmailBulkRecipient = defineEntity({
  name: 'EmailBulkRecipient',
  tableName: 'email_bulk_recipient',
  uniques: [{ properties: ['bulkId', 'index'] }],
  indexes: workspaceIndexes(['bulkId', 'status']),
  properties: {
    ...tenantProps,
    bulkId: p.string().length(24),
    index: p.integer(),
    email: p.string().length(320),
    name: p.string().length(200).nullable(),
    personId: p.string().length(24).nullable(),
    companyId: p.string().length(24).nullable(),
    personalizedSubject: p.string().length(1000).nullable(),
    personalizedHtml: p.text().nullable(),
    status: p.string().length(10).$type<BulkRecipientStatus>(),
    emailId: p.string().length(24).nullable(),
    error: p.text().nullable(),
    sentAt: p.datetime().nullable(),
  },
});
export type EmailBulkRecipient = InferEntity<typeof EmailBulkRecipient>;
