/**
 * Bulk e-mail (`POST /emails/bulk`): one row per send and one per recipient, then either one
 * workflow `email-bulk:<workspaceId>:<queueId>` (queued, the default) or a synchronous send
 * (`immediate`, at most 10 recipients). Both run the same batch function: each recipient goes out
 * through sendEmail under the key `bulk:<queueId>:<index>`, so a retried batch (worker killed
 * mid-send) replays what was sent and never hands one recipient to SMTP twice.
 */
import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { contactView, plainRecord } from '../../platform/shared/record-view';
import { Company } from '../companies';
import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import { type EmailDeps } from './email.service';
import { executeLean, leanColumns, leanQuery, readDates } from '../../platform/orm/lean';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { Person } from '../people';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { emailBulkKind } from './email-bulk.kind';
import { startForRow, type WorkflowPort } from '../../platform/workflow-port';
import type { Logger } from '../../platform/logger';
import type { SendThrottle } from './bulk-throttle';
import { accountForSend } from './email-accounts.service';
import { EmailBulk, EmailBulkRecipient } from './email-bulk.entity';
import { renderEmailParts } from './template-render';
import type { BulkEmailCreatedView } from './email.views';
import {
  insertRowsSql,
  recipientsSql,
  sendBulkMessages,
  type BulkItem,
  type BulkMessage,
  type BulkProgress,
} from './bulk-send';
import { newId } from '../../platform/ids';
import { finishBulk, serializeRecipient, type BulkSummary } from './email-bulk-progress.service';
import { checkBulkInput, checkRecipientLinks, MAX_IMMEDIATE_RECIPIENTS, type BulkEmailInput } from './email-bulk-input';

export { finishBulk, getBulkProgress, type BulkSummary } from './email-bulk-progress.service';
export {
  checkBulkInput,
  MAX_BULK_EMAIL_RECIPIENTS,
  MAX_IMMEDIATE_RECIPIENTS,
  type BulkEmailInput,
  type BulkRecipientInput,
} from './email-bulk-input';

export interface BulkSendSettings {
  /** Sends in flight at once within one batch (default 16). */
  concurrency: number;
  /** Recipients per activity call (default 100). */
  batchSize: number;
}

export interface BulkDeps {
  email: EmailDeps;
  throttle: SendThrottle;
  settings: BulkSendSettings;
}

/**
 * Placeholder namespaces of a bulk e-mail; bare `{{name}}`, `{{email}}`, `{{firstName}}`, `{{lastName}}` name the
 * recipient.
 */
const PLACEHOLDERS = {
  namespaces: ['contact', 'person', 'company', 'recipient'],
  topLevelNames: ['name', 'email', 'firstName', 'lastName'],
} as const;

export interface CreateBulkDeps extends BulkDeps {
  workflows: WorkflowPort;
  log: Logger;
}

/** POST /emails/bulk: stores the send and queues it (one workflow) or, when immediate, sends it now. */
export async function createBulkEmail(
  ctx: Ctx,
  input: BulkEmailInput,
  deps: CreateBulkDeps,
): Promise<BulkEmailCreatedView> {
  const { recipients, duplicates } = checkBulkInput(input);
  if (input.trackOpens && !deps.email.tracking)
    throw new DomainError(
      'not_configured',
      'open tracking needs CRM_SECRETS_KEY (the tracking links are signed with a key derived from it) and PUBLIC_BASE_URL',
    );
  const account = await accountForSend(ctx, input.accountId, { asUser: true });
  if (!deps.email.accounts)
    throw new DomainError('not_configured', 'sending from connected e-mail accounts is not available in this process');
  await checkRecipientLinks(ctx, recipients);
  const bulk = await inTransaction(ctx, async () => {
    const row = createRecord(ctx, EmailBulk, {
      accountId: account._id,
      subject: input.subject.trim(),
      html: input.html?.length ? input.html : null,
      text: input.text?.length ? input.text : null,
      trackOpens: input.trackOpens ?? false,
      immediate: input.immediate ?? false,
      status: input.immediate ? 'sending' : 'queued',
      total: recipients.length,
      workflowId: null,
      createdBy: ctx.actor.userId,
      error: null,
      finishedAt: null,
    });
    if (!input.immediate) row.workflowId = emailBulkKind.workflowId(ctx.actor.workspaceId, row._id);
    // Up to 500 rows: one multi-row statement instead of 500 entities through the unit of work.
    const now = new Date();
    const params: unknown[] = [];
    const insert = insertRowsSql(
      'email_bulk_recipient',
      recipients.map((r, index) => ({
        _id: newId(now),
        workspaceId: ctx.actor.workspaceId,
        createdAt: now,
        updatedAt: now,
        bulkId: row._id,
        index,
        email: r.email,
        name: r.name ?? null,
        personId: r.personId ?? null,
        companyId: r.companyId ?? null,
        personalizedSubject: r.personalizedSubject?.trim() || null,
        personalizedHtml: r.personalizedHtml?.length ? r.personalizedHtml : null,
        status: 'pending',
        emailId: null,
        error: null,
        sentAt: null,
      })),
      params,
    );
    await executeLean(ctx.em, insert, params);
    return row;
  });
  const base = { queueId: bulk._id, duplicatesRemoved: duplicates };
  if (input.immediate) {
    const rootEm = ctx.em;
    const batch = await processBulkBatch(
      rootEm,
      { workspaceId: ctx.actor.workspaceId, queueId: bulk._id, limit: MAX_IMMEDIATE_RECIPIENTS },
      deps,
    );
    // An immediate send is not retried in the background: what the mail server did not take now failed.
    const done = await finishBulk(rootEm, {
      workspaceId: ctx.actor.workspaceId,
      queueId: bulk._id,
      ...(batch.remaining
        ? {
            error: batch.deferredUntil
              ? `not sent: the mailbox's cap (maxPerHour / maxPerDay) is reached until ${batch.deferredUntil}; send it again then`
              : 'not sent: the mail server was unavailable; send it again',
          }
        : {}),
    });
    const rows = await ctx.em.find(
      EmailBulkRecipient,
      { bulkId: bulk._id },
      { orderBy: { index: 'asc' }, refresh: true },
    );
    return { immediate: true, ...base, summary: done.summary, results: rows.map(serializeRecipient) };
  }
  await startForRow(
    deps.workflows,
    {
      kind: emailBulkKind,
      workspaceId: ctx.actor.workspaceId,
      id: bulk._id,
      input: { workspaceId: ctx.actor.workspaceId, queueId: bulk._id },
      meta: {
        workspaceId: ctx.actor.workspaceId,
        queueId: bulk._id,
        accountId: account._id,
        recipients: recipients.length,
      },
    },
    {
      log: deps.log,
      retryable: false,
      what: 'the bulk send',
      markNotStarted: async (reason) => {
        await ctx.em.nativeUpdate(
          EmailBulk,
          { _id: bulk._id },
          { status: 'failed', error: reason, finishedAt: new Date(), updatedAt: new Date() },
        );
        await ctx.em.nativeUpdate(
          EmailBulkRecipient,
          { bulkId: bulk._id, status: 'pending' },
          { status: 'failed', error: 'the bulk send could not be started', updatedAt: new Date() },
        );
      },
    },
  );
  return {
    queued: true,
    ...base,
    summary: { total: recipients.length, pending: recipients.length, sent: 0, failed: 0, unknown: 0 },
  };
}

export interface BatchResult {
  sent: number;
  failed: number;
  unknown: number;
  retryLater: number;
  /**
   * The mailbox's cap (maxPerHour / maxPerDay) held recipients back: the send goes on then (ISO). The workflow
   * waits for it on a timer (capWaits) instead of retrying the activity.
   */
  deferredUntil?: string;
  remaining: number;
  /** The batch that left nothing pending also completed the send (finishBulk): the workflow ends with this. */
  finished?: { status: string; summary: BulkSummary };
}

function recipientContext(
  r: EmailBulkRecipient,
  person: Person | undefined,
  company: Company | undefined,
): Record<string, unknown> {
  const [first, ...rest] = (r.name ?? '').split(/\s+/).filter(Boolean);
  const fromName = {
    email: r.email,
    name: r.name ?? '',
    firstName: first ?? '',
    lastName: rest.join(' '),
    fullName: r.name ?? '',
  };
  const contact: Record<string, unknown> = person ? { ...contactView(person), email: r.email } : fromName;
  return {
    contact,
    person: contact,
    ...(company ? { company: plainRecord(company) } : {}),
    recipient: { email: r.email, name: r.name ?? '' },
    name: r.name || (contact.fullName as string) || '',
    email: r.email,
    firstName: (contact.firstName as string | undefined) ?? fromName.firstName,
    lastName: (contact.lastName as string | undefined) ?? fromName.lastName,
  };
}

/**
 * Sends the next `limit` pending recipients of one bulk send (bounded concurrency, paced per
 * mailbox, claims and outcomes written per batch) and records each outcome. Safe to run again
 * after a crash: every recipient's claim is keyed (bulk-send.ts).
 */
export async function processBulkBatch(
  rootEm: EntityManager,
  input: { workspaceId: string; queueId: string; limit?: number },
  deps: BulkDeps & { heartbeat?: (progress: BulkProgress) => void },
): Promise<BatchResult> {
  const em = forkForWorkspace(rootEm, input.workspaceId);
  const bulk = await em.findOne(EmailBulk, { _id: input.queueId });
  const result: BatchResult = { sent: 0, failed: 0, unknown: 0, retryLater: 0, remaining: 0 };
  if (!bulk || bulk.status === 'completed' || bulk.status === 'failed') return result;
  // This attempt takes the send's lease: from its commit on, no earlier attempt (a worker presumed dead) can claim a
  // message, so the claims they left open are final and count as possibly sent at once (bulk-send.ts).
  const lease = { bulkId: bulk._id, token: newId() };
  const [taken] = await executeLean<{ was: string }>(
    em,
    `with old as (select id, status from email_bulk where workspace_id = ? and id = ? and status in ('queued', 'sending') for update)` +
      ` update email_bulk b set lease = ?, status = 'sending', updated_at = ? from old where b.id = old.id returning old.status as was`,
    [input.workspaceId, bulk._id, lease.token, new Date()],
  );
  if (!taken) return result;
  // The first batch of a send that never started: no claim of it can exist yet (claims follow this update).
  const firstStart = taken.was === 'queued';
  // Read without the ORM's hydration (up to a batch of 500 rows; nothing here is written back through it).
  const columns = leanColumns(em, EmailBulkRecipient as EntityName<object>);
  const batch = (
    await leanQuery<Record<string, unknown>>(
      em,
      `select ${columns.select} from email_bulk_recipient where workspace_id = $1 and bulk_id = $2 and status = 'pending'` +
        ` order by "index" asc limit $3`,
      [input.workspaceId, bulk._id, input.limit ?? deps.settings.batchSize],
      'bulk_recipients_pending',
    )
  ).map((row) => readDates<EmailBulkRecipient>(em, row, columns.dates));
  const personIds = [...new Set(batch.map((r) => r.personId).filter((v): v is string => !!v))];
  const companyIds = [...new Set(batch.map((r) => r.companyId).filter((v): v is string => !!v))];
  const people = new Map(
    (personIds.length ? await em.find(Person, { _id: { $in: personIds } }) : []).map((p) => [p._id, p]),
  );
  const companies = new Map(
    (companyIds.length ? await em.find(Company, { _id: { $in: companyIds } }) : []).map((c) => [c._id, c]),
  );
  // Rendered when its claim group comes up (bulk-send.ts), not all before the first send.
  const items: BulkItem[] = batch.map((r) => ({
    recipientId: r._id,
    key: `bulk:${bulk._id}:${r.index}`,
    render: (): BulkMessage => {
      const content = renderEmailParts(
        { subject: r.personalizedSubject ?? bulk.subject, html: r.personalizedHtml ?? bulk.html, text: bulk.text },
        recipientContext(
          r,
          r.personId ? people.get(r.personId) : undefined,
          r.companyId ? companies.get(r.companyId) : undefined,
        ),
        PLACEHOLDERS,
      );
      return {
        recipientId: r._id,
        key: `bulk:${bulk._id}:${r.index}`,
        to: r.name ? `"${r.name.replace(/["\\]/g, '')}" <${r.email}>` : r.email,
        subject: content.subject || bulk.subject,
        html: content.html,
        text: content.text,
        links: { personId: r.personId ?? undefined, companyId: r.companyId ?? undefined },
      };
    },
  }));
  const actor = {
    workspaceId: input.workspaceId,
    userId: bulk.createdBy,
    role: 'admin' as const,
    scopes: ['read', 'write'] as ('read' | 'write')[],
  };
  // One pipeline for the batch (bulk-send.ts): claims, sends and records overlap, so SMTP stays busy.
  const outcomes = await sendBulkMessages(
    { em: forkForWorkspace(rootEm, input.workspaceId), actor },
    { accountId: bulk.accountId, trackOpens: bulk.trackOpens, bulkRef: `bulk:${bulk._id}`, items, firstStart, lease },
    {
      email: deps.email,
      throttle: deps.throttle,
      concurrency: deps.settings.concurrency,
      heartbeat: deps.heartbeat,
    },
  );
  const decided = outcomes.filter((o) => o.status !== 'retry');
  for (const o of outcomes) {
    if (o.status === 'retry') {
      result.retryLater++;
      if (o.retryAt && (!result.deferredUntil || o.retryAt.toISOString() > result.deferredUntil))
        result.deferredUntil = o.retryAt.toISOString();
    } else result[o.status]++;
  }
  // The pipeline recorded the recipients it sent; this records the rest (replays, earlier attempts' open claims,
  // messages that do not render) in one statement, the same values again for the others.
  if (decided.length) {
    const params: unknown[] = [];
    await executeLean(em, recipientsSql(decided, new Date(), input.workspaceId, params), params);
  }
  result.remaining = await em.count(EmailBulkRecipient, { bulkId: bulk._id, status: 'pending' });
  // The last batch completes the send itself: no further activity round trip before the row says completed.
  if (result.remaining === 0) result.finished = await finishBulk(rootEm, input);
  return result;
}
