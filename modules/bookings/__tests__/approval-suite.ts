// The set-up of the booking approval files: the engine harness with a local SMTP server, one tenant and
// its outbox dispatcher. BOOKING_TIME_SCALE=0.001 (honoured only under CRM_TEST): one hour of deadline is 3.6 s.
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { withEngine, type EngineSuite } from '../../../test/support/engine-suite';

/** RECORD_BOOKING_FIXTURE=1: the files rewrite their history fixtures (the payloads are then plain). */
export const RECORD = process.env.RECORD_BOOKING_FIXTURE === '1';

export interface ApprovalSuite extends EngineSuite {
  /** The server the booking e-mails go to; it keeps what it received. */
  smtp: LocalSmtp;
  /** The e-mail address of the tenant's owner (the approver). */
  ownerEmail: string;
}

/**
 * Starts the SMTP server, the engine harness (`tenant`, booking e-mails from bookings@acme.test) and the
 * tenant's outbox dispatcher before the file's tests and hands them to `set`; stops them after.
 */
export function withApprovalEngine(tenant: string, set: (s: ApprovalSuite) => void): void {
  let smtp: LocalSmtp | undefined;
  let engine: EngineSuite;
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  withEngine(tenant, (s) => (engine = s), {
    env: () => ({
      SMTP_URL: `smtp://127.0.0.1:${smtp!.port}`,
      MAIL_FROM: 'Acme Bookings <bookings@acme.test>',
      BOOKING_TIME_SCALE: '0.001',
      ...(RECORD ? { TEMPORAL_PAYLOAD_KEYS: '' } : {}),
    }),
    timeoutMs: 120_000,
  });
  beforeAll(async () => {
    const ownerEmail = (await engine.t.http.get('/api/v1/whoami')).body.data.user.email;
    await engine.h.dispatcher([engine.t.workspaceId]).start();
    set({ ...engine, smtp: smtp!, ownerEmail });
  });
  afterAll(() => smtp?.close());
}

/** What `smtp` received for `address`, the quoted-printable soft line breaks undone (so ids in bodies are whole). */
export const receivedMails = (smtp: LocalSmtp, address: string) =>
  smtp.received.filter((m) => m.to.includes(address)).map((m) => ({ ...m, raw: m.raw.replace(/=\r?\n/g, '') }));
