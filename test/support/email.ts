import { addEmailAccount, type EmailAccountInput } from '../../domain/email/email-accounts.service';
import { recordOutboundEmail } from '../../domain/email/email-records';
import { newId } from '../../domain/ids';
import { parseSecretsKey } from '../../domain/shared/secret-box';
import type { HttpClient, TestApp } from './app';
import { workspaceCtx } from './automations';
import { unique } from './unique';

/** Connects a mailbox the way the operator CLI does (against the test app's database and key). */
export async function connectAccount(app: TestApp, workspaceId: string, smtpPort: number, over: Partial<EmailAccountInput> = {}) {
  return addEmailAccount(app.runtime.deps.orm.em.fork(), {
    workspaceId, name: 'Sales', emailAddress: `sales-${unique()}@acme.example`, displayName: 'Acme Sales',
    smtp: { host: '127.0.0.1', port: smtpPort, secure: false, user: 'mailer', password: 's3cret-smtp' }, ...over,
  }, parseSecretsKey(app.config.secretsKey));
}

/** An e-mail row without a send (tenant-isolation factory): sent by the fallback sender, so the owner sees it. */
export async function insertEmail(app: TestApp, http: HttpClient): Promise<string> {
  const ctx = await workspaceCtx(app, http);
  const id = newId();
  recordOutboundEmail(ctx, {
    id, activityId: id, at: new Date(), accountId: null, links: {}, messageId: `<${id}@acme.example>`, thread: null, sourceRef: null, trackOpens: false,
    mail: { from: { address: 'crm@acme.example' }, to: [{ address: 'ann@example.com' }], cc: [], bcc: [], subject: `Factory ${unique()}`, text: 'Hello', source: 'api' },
  });
  await ctx.em.flush();
  return id;
}
