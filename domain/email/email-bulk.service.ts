/**
 * Bulk e-mail (`POST /emails/bulk`): one row per send and one per recipient, then either one
 * workflow `email-bulk:<workspaceId>:<queueId>` (queued, the default) or a synchronous send
 * (`immediate`, at most 10 recipients). Both run the same batch function: each recipient goes out
 * through sendEmail under the key `bulk:<queueId>:<index>`, so a retried batch (worker killed
 * mid-send) replays what was sent and never hands one recipient to SMTP twice.
 */
import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { contactView, plainRecord } from '../automations/engine/context';
import { Company } from '../companies/company.entity';
import type { Ctx } from '../context';
import { DomainError, notFound, validation } from '../errors';
import { parseMailbox } from '../messaging/addresses';
import { MAX_EMAIL_BODY_BYTES, MAX_SUBJECT, type EmailDeps } from '../messaging/email.service';
import { executeLean, leanColumns, leanQuery, readDates } from '../orm/lean';
import { forkForWorkspace } from '../orm/tenant';
import { Person } from '../people/person.entity';
import { createRecord } from '../shared/records';
import { inTransaction } from '../shared/tx';
import { emailBulkKind } from '../workflow-kinds';
import { startForRow, type WorkflowPort } from '../workflow-port';
import type { Logger } from '../logger';
import type { SendThrottle } from './bulk-throttle';
import { accountForSend } from './email-accounts.service';
import { EmailBulk, EmailBulkRecipient, type BulkRecipientStatus } from './email-bulk.entity';
import { renderEmailParts } from './template-render';
import type { BulkEmailCreatedView, BulkProgressView, BulkRecipientView } from './email.views';
import {
  insertRowsSql,
  recipientsSql,
  sendBulkMessages,
  type BulkItem,
  type BulkMessage,
  type BulkProgress,
} from './bulk-send';
import { newId } from '../ids';

export const MAX_BULK_EMAIL_RECIPIENTS = 500;
export const MAX_IMMEDIATE_RECIPIENTS = 10;

export interface BulkRecipientInput {
  email: string;
  name?: string;
  personId?: string;
  companyId?: string;
  personalizedSubject?: string;
  personalizedHtml?: string;
}

export interface BulkEmailInput {
  accountId: string;
  subject: string;
  html?: string;
  text?: string;
  recipients: BulkRecipientInput[];
  trackOpens?: boolean;
  immediate?: boolean;
}

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

type Issue = { path: string; error: string };

/**
 * Placeholder namespaces of a bulk e-mail; bare `{{name}}`, `{{email}}`, `{{firstName}}`, `{{lastName}}` name the
 * recipient.
 */
const PLACEHOLDERS = {
  namespaces: ['contact', 'person', 'company', 'recipient'],
  topLevelNames: ['name', 'email', 'firstName', 'lastName'],
} as const;

/** Checks a bulk request (pure): recipient addresses, duplicates, sizes and the immediate limit. */
export function checkBulkInput(input: BulkEmailInput): { recipients: BulkRecipientInput[]; duplicates: number } {
  const issues: Issue[] = [];
  if (!input.recipients.length) issues.push({ path: 'recipients', error: 'at least one recipient is required' });
  if (input.recipients.length > MAX_BULK_EMAIL_RECIPIENTS)
    issues.push({ path: 'recipients', error: `at most ${MAX_BULK_EMAIL_RECIPIENTS} recipients per bulk send` });
  if (input.immediate && input.recipients.length > MAX_IMMEDIATE_RECIPIENTS) {
    issues.push({
      path: 'immediate',
      error: `only sends to ${MAX_IMMEDIATE_RECIPIENTS} or fewer recipients can be immediate; leave it out to queue the send`,
    });
  }
  const subject = input.subject.trim();
  if (!subject) issues.push({ path: 'subject', error: 'is required' });
  if (/[\r\n]/.test(input.subject)) issues.push({ path: 'subject', error: 'must not contain line breaks' });
  if (subject.length > MAX_SUBJECT)
    issues.push({ path: 'subject', error: `must be at most ${MAX_SUBJECT} characters` });
  if (!input.html?.trim() && !input.text?.trim() && !input.recipients.every((r) => r.personalizedHtml?.trim()))
    issues.push({ path: 'html', error: 'html (or bodyHtml) or text is required' });
  if (Buffer.byteLength(input.html ?? '') + Buffer.byteLength(input.text ?? '') > MAX_EMAIL_BODY_BYTES)
    issues.push({ path: 'html', error: `html and text together must be at most ${MAX_EMAIL_BODY_BYTES} bytes` });
  const seen = new Set<string>();
  const recipients: BulkRecipientInput[] = [];
  let duplicates = 0;
  input.recipients.slice(0, MAX_BULK_EMAIL_RECIPIENTS).forEach((r, i) => {
    const parsed = parseMailbox(r.email);
    if ('error' in parsed) return void issues.push({ path: `recipients[${i}].email`, error: parsed.error });
    if (r.personalizedSubject !== undefined && /[\r\n]/.test(r.personalizedSubject))
      issues.push({ path: `recipients[${i}].personalizedSubject`, error: 'must not contain line breaks' });
    if (r.personalizedHtml !== undefined && Buffer.byteLength(r.personalizedHtml) > MAX_EMAIL_BODY_BYTES)
      issues.push({
        path: `recipients[${i}].personalizedHtml`,
        error: `must be at most ${MAX_EMAIL_BODY_BYTES} bytes`,
      });
    const key = parsed.mailbox.address.toLowerCase();
    // The same address twice in one send is one e-mail (the first entry's personalisation wins).
    if (seen.has(key)) return void duplicates++;
    seen.add(key);
    recipients.push({ ...r, email: parsed.mailbox.address, name: r.name?.trim() || parsed.mailbox.name || undefined });
  });
  if (issues.length) throw validation(`${issues[0]!.path}: ${issues[0]!.error}`, issues);
  return { recipients, duplicates };
}

/** personId / companyId of recipients must be records of the workspace (400 naming the entry). */
async function checkRecipientLinks(ctx: Ctx, recipients: BulkRecipientInput[]): Promise<void> {
  const ids = (key: 'personId' | 'companyId') => [
    ...new Set(recipients.map((r) => r[key]).filter((v): v is string => !!v)),
  ];
  const people = ids('personId');
  const companies = ids('companyId');
  const foundPeople = new Set(
    people.length ? (await ctx.em.find(Person, { _id: { $in: people } }, { fields: ['_id'] })).map((p) => p._id) : [],
  );
  const foundCompanies = new Set(
    companies.length
      ? (await ctx.em.find(Company, { _id: { $in: companies } }, { fields: ['_id'] })).map((c) => c._id)
      : [],
  );
  const issues: Issue[] = [];
  recipients.forEach((r, i) => {
    if (r.personId && !foundPeople.has(r.personId))
      issues.push({ path: `recipients[${i}].personId`, error: `no person ${r.personId} in this workspace` });
    if (r.companyId && !foundCompanies.has(r.companyId))
      issues.push({ path: `recipients[${i}].companyId`, error: `no company ${r.companyId} in this workspace` });
  });
  if (issues.length) throw validation(`${issues[0]!.path}: ${issues[0]!.error}`, issues);
}

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
      ...(batch.remaining ? { error: 'not sent: the mail server was unavailable; send it again' } : {}),
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
    if (o.status === 'retry') result.retryLater++;
    else result[o.status]++;
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

const serializeRecipient = (r: EmailBulkRecipient): BulkRecipientView => ({
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

/** GET /emails/bulk/:queueId: totals plus one page of recipients (in send order, optionally by status). */
export async function getBulkProgress(
  ctx: Ctx,
  queueId: string,
  q: { page: number; limit: number; status?: BulkRecipientStatus },
): Promise<{ data: BulkProgressView; page: number; limit: number; total: number }> {
  const bulk = await ctx.em.findOne(EmailBulk, { _id: queueId });
  if (!bulk) throw notFound('bulk e-mail');
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
      status: bulk.status,
      accountId: bulk.accountId,
      subject: bulk.subject,
      immediate: bulk.immediate,
      trackOpens: bulk.trackOpens,
      workflowId: bulk.workflowId ?? null,
      error: bulk.error ?? null,
      createdBy: bulk.createdBy,
      createdAt: bulk.createdAt.toISOString(),
      finishedAt: bulk.finishedAt?.toISOString() ?? null,
      summary,
      recipients: rows.map(serializeRecipient),
    },
    page: q.page,
    limit: q.limit,
    total,
  };
}
