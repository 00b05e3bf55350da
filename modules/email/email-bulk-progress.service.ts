import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { EmailBulk, EmailBulkRecipient, type BulkRecipientStatus } from './email-bulk.entity';
import type { BulkProgressView, BulkRecipientView } from './email.views';
import { getRecord } from '../../platform/shared/record-service';
import { plainOf } from '../../platform/shared/views';

// A bulk e-mail's end and its progress: the status counts, finishing the send, the progress read.

export type BulkSummary = Record<'total' | 'pending' | 'sent' | 'failed' | 'unknown', number>;

async function summaryOf(em: EntityManager, workspaceId: string, bulkId: string): Promise<BulkSummary> {
  const rows: { status: BulkRecipientStatus; n: string }[] = await em.execute(
    'select status, count(*) as n from email_bulk_recipient where workspace_id = ? and bulk_id = ? group by status',
    [workspaceId, bulkId],
  );
  const count = (s: BulkRecipientStatus) => Number(rows.find((r) => r.status === s)?.n ?? 0);
  const out = { pending: count('pending'), sent: count('sent'), failed: count('failed'), unknown: count('unknown') };
  return { total: out.pending + out.sent + out.failed + out.unknown, ...out };
}

/** The end of a bulk send: what is still pending fails with `error` (retries spent), the row is completed. */
export async function finishBulk(
  rootEm: EntityManager,
  input: { workspaceId: string; queueId: string; error?: string },
): Promise<{ status: string; summary: BulkSummary }> {
  const em = forkForWorkspace(rootEm, input.workspaceId);
  const now = new Date();
  if (input.error)
    await em.nativeUpdate(
      EmailBulkRecipient,
      { bulkId: input.queueId, status: 'pending' },
      { status: 'failed', error: input.error.slice(0, 2000), updatedAt: now },
    );
  await em.nativeUpdate(
    EmailBulk,
    { _id: input.queueId, status: { $in: ['queued', 'sending'] } },
    {
      status: 'completed',
      finishedAt: now,
      updatedAt: now,
      ...(input.error ? { error: input.error.slice(0, 2000) } : {}),
    },
  );
  return { status: 'completed', summary: await summaryOf(em, input.workspaceId, input.queueId) };
}

export const serializeRecipient = (r: EmailBulkRecipient): BulkRecipientView => ({
  index: r.index,
  email: r.email,
  name: r.name ?? null,
  personId: r.personId ?? null,
  companyId: r.companyId ?? null,
  status: r.status,
  emailId: r.emailId ?? null,
  error: r.error ?? null,
  sentAt: r.sentAt?.toISOString() ?? null,
});

const BULK_FIELDS = [
  'status',
  'accountId',
  'subject',
  'immediate',
  'trackOpens',
  'workflowId',
  'error',
  'createdBy',
  'createdAt',
  'finishedAt',
] as const;

/** GET /emails/bulk/:queueId: totals plus one page of recipients (in send order, optionally by status). */
export async function getBulkProgress(
  ctx: Ctx,
  queueId: string,
  q: { page: number; limit: number; status?: BulkRecipientStatus },
): Promise<{ data: BulkProgressView; page: number; limit: number; total: number }> {
  const bulk = await getRecord(ctx, EmailBulk, queueId, 'bulk e-mail');
  const where = { bulkId: bulk._id, ...(q.status ? { status: q.status } : {}) };
  const [rows, total] = await ctx.em.findAndCount(EmailBulkRecipient, where, {
    orderBy: { index: 'asc' },
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  });
  const summary = await summaryOf(ctx.em, ctx.actor.workspaceId, bulk._id);
  return {
    data: {
      queueId: bulk._id,
      ...plainOf(bulk, BULK_FIELDS),
      summary,
      recipients: rows.map(serializeRecipient),
    },
    page: q.page,
    limit: q.limit,
    total,
  };
}
