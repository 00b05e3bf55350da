// The set-up of the e-mail test files: a local SMTP server, the app, one workspace and its mailbox on
// that server, started before the file's tests and stopped after them.
import { startSmtp, type LocalSmtp } from '../unit/messaging/local-smtp';
import { startTestApp, type Tenant, type TestApp } from './app';
import { connectAccount } from './email';

export interface MailboxSuite {
  app: TestApp;
  t: Tenant;
  /** The SMTP server (user mailer) the mailbox sends through; it keeps what it received. */
  smtp: LocalSmtp;
  /** The tenant's mailbox, connected the way the operator CLI does. */
  accountId: string;
  /** The mailbox's inbound webhook secret. */
  inboundSecret: string;
}

/**
 * Starts the SMTP server, the app (with `env()` over the test defaults: a function, for the ports of
 * servers an earlier `beforeAll` started), a tenant named `tenant` and its mailbox, and hands them to
 * `set`; stops the app and the server after the file's tests.
 */
export function withMailbox(
  tenant: string,
  set: (s: MailboxSuite) => void,
  options: { env?: () => Record<string, string> } = {},
): void {
  let smtp: LocalSmtp | undefined;
  let app: TestApp | undefined;
  beforeAll(async () => {
    smtp = await startSmtp({ user: 'mailer', password: 's3cret-smtp' });
    app = await startTestApp(options.env?.());
    const t = await app.tenant(tenant);
    const connected = await connectAccount(app, t.workspaceId, smtp.port);
    set({ app, t, smtp, accountId: String(connected.account._id), inboundSecret: connected.inboundSecret });
  });
  afterAll(async () => {
    await app?.close();
    await smtp?.close();
  });
}
