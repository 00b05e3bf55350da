import { addEmailAccount, type EmailAccountInput } from '../../modules/email/email-accounts.service';
import { outboundEmailRow } from '../../modules/email/email-records';
import { insertRowsSql } from '../../platform/orm/lean';
import { EmailBulk, EmailBulkRecipient } from '../../modules/email/email-bulk.entity';
import { createRecord } from '../../platform/shared/records';
import { newId } from '../../platform/ids';
import { parseSecretsKey } from '../../platform/shared/secret-box';
import type { HttpClient, TestApp } from './app';
import { workspaceCtx } from './automations';
import { unique } from './unique';

/** Connects a mailbox the way the operator CLI does (against the test app's database and key). */
export async function connectAccount(
  app: TestApp,
  workspaceId: string,
  smtpPort: number,
  over: Partial<EmailAccountInput> = {},
) {
  return addEmailAccount(
    app.runtime.deps.orm.em.fork(),
    {
      workspaceId,
      name: 'Sales',
      emailAddress: `sales-${unique()}@acme.example`,
      displayName: 'Acme Sales',
      smtp: { host: '127.0.0.1', port: smtpPort, secure: false, user: 'mailer', password: 's3cret-smtp' },
      ...over,
    },
    parseSecretsKey(app.config.secretsKey),
  );
}

/**
 * A template made to be deleted before it is used (POST /api/v1/email-templates; name `Gone <now>`, subject
 * Gone): the tests of sends whose template is gone.
 */
export async function createTemplateToDelete(http: HttpClient): Promise<{ _id: string }> {
  const res = await http.post('/api/v1/email-templates', {
    name: `Gone ${Date.now()}`,
    bodyHtml: '<p>x</p>',
    metadata: { subject: 'Gone' },
  });
  return res.body.data;
}

/** An e-mail row without a send (tenant-isolation factory): sent by the fallback sender, so the owner sees it. */
export async function insertEmail(app: TestApp, http: HttpClient): Promise<string> {
  const ctx = await workspaceCtx(app, http);
  const id = newId();
  const { table, row } = outboundEmailRow(ctx, {
    id,
    activityId: id,
    at: new Date(),
    accountId: null,
    links: {},
    messageId: `<${id}@acme.example>`,
    thread: null,
    sourceRef: null,
    trackOpens: false,
    mail: {
      from: { address: 'crm@acme.example' },
      to: [{ address: 'ann@example.com' }],
      cc: [],
      bcc: [],
      subject: `Factory ${unique()}`,
      text: 'Hello',
      source: 'api',
    },
  });
  const params: unknown[] = [];
  await ctx.em.execute(insertRowsSql(table, [row], params), params, 'run');
  return id;
}

/** A finished bulk send with one recipient, without sending (tenant-isolation factory). */
export async function insertEmailBulk(app: TestApp, http: HttpClient): Promise<string> {
  const ctx = await workspaceCtx(app, http);
  const bulk = createRecord(ctx, EmailBulk, {
    accountId: newId(),
    subject: `Factory bulk ${unique()}`,
    html: null,
    text: 'Hello',
    trackOpens: false,
    immediate: true,
    status: 'completed',
    total: 1,
    workflowId: null,
    createdBy: ctx.actor.userId,
    error: null,
    finishedAt: new Date(),
  });
  createRecord(ctx, EmailBulkRecipient, {
    bulkId: bulk._id,
    index: 0,
    email: 'ann@example.com',
    name: null,
    personId: null,
    companyId: null,
    personalizedSubject: null,
    personalizedHtml: null,
    status: 'sent',
    emailId: null,
    error: null,
    sentAt: new Date(),
  });
  await ctx.em.flush();
  return bulk._id;
}

let mailCount = 0;

/**
 * A raw RFC 822 message as a mail server hands it over: a fresh Message-ID, the current Date, plain
 * UTF-8 text by default, then `headers` (From, To, Subject, … and overrides of these), a blank line and
 * `body`.
 */
export function rawMail(headers: Record<string, string>, body: string): string {
  return [
    ...Object.entries({
      'Message-ID': `<mail-${Date.now()}-${++mailCount}@example.com>`,
      Date: new Date().toUTCString(),
      'MIME-Version': '1.0',
      'Content-Type': 'text/plain; charset=utf-8',
      ...headers,
    }).map(([k, v]) => `${k}: ${v}`),
    '',
    body,
    '',
  ].join('\r\n');
}
