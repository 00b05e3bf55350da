import { DeliveryError } from '../../../platform/ports/delivery-error.port';
import type { EmailMessage } from '../../../platform/ports/messaging.port';
import type { SmtpSettings } from '../../../platform/ports/messaging.port';
import { createSmtpTransport } from '../../../adapters/smtp/smtp-transport';
import { closedPort, startDroppingSmtp, startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';

const from = { address: 'crm@sender.example', name: 'Acme CRM' };
const settings = (port: number, auth = true): SmtpSettings => ({
  host: '127.0.0.1',
  port,
  secure: false,
  from,
  ...(auth ? { user: 'mailer', password: 's3cret' } : {}),
});
const message = (over: Partial<EmailMessage> = {}): EmailMessage => ({
  from,
  to: [{ address: 'ann@example.com', name: 'Ann Example' }],
  cc: [{ address: 'cc@example.com' }],
  bcc: [{ address: 'hidden@example.com' }],
  replyTo: { address: 'reply@sender.example' },
  subject: 'Quarterly offer',
  html: '<p>Hello <b>Ann</b></p>',
  text: 'Hello Ann',
  messageId: '<abc123@sender.example>',
  ...over,
});

describe('SMTP transport against a real SMTP server', () => {
  let smtp: LocalSmtp;
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    // Clients first: the server's close waits for open (pooled) connections.
    for (const close of closers.splice(0).reverse()) await close();
  });
  const transportFor = (s: SmtpSettings, opts = {}) => {
    const t = createSmtpTransport(s, opts);
    closers.push(() => t.close());
    return t;
  };

  it('authenticates and delivers headers, envelope and both bodies', async () => {
    smtp = await startSmtp({ user: 'mailer', password: 's3cret' });
    closers.push(() => smtp.close());
    const result = await transportFor(settings(smtp.port)).send(message());
    expect(result).toEqual({
      messageId: '<abc123@sender.example>',
      accepted: ['ann@example.com', 'cc@example.com', 'hidden@example.com'],
      rejected: [],
    });
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0]!;
    expect(mail.user).toBe('mailer');
    expect(mail.from).toBe('crm@sender.example');
    expect(mail.to.sort()).toEqual(['ann@example.com', 'cc@example.com', 'hidden@example.com']);
    expect(mail.headers.from).toBe('Acme CRM <crm@sender.example>');
    expect(mail.headers.to).toBe('Ann Example <ann@example.com>');
    expect(mail.headers.cc).toBe('cc@example.com');
    expect(mail.headers.bcc).toBeUndefined();
    expect(mail.headers['reply-to']).toBe('reply@sender.example');
    expect(mail.headers.subject).toBe('Quarterly offer');
    expect(mail.headers['message-id']).toBe('<abc123@sender.example>');
    expect(mail.headers['content-type']).toMatch(/^multipart\/alternative/);
    expect(mail.raw).toContain('Hello Ann');
    expect(mail.raw).toContain('<p>Hello <b>Ann</b></p>');
  });

  it('encodes a non-ASCII subject and text-only bodies', async () => {
    smtp = await startSmtp();
    closers.push(() => smtp.close());
    await transportFor(settings(smtp.port, false)).send(
      message({ subject: 'Tilbud på æbler', html: undefined, text: 'Kun tekst', cc: [], bcc: [] }),
    );
    const mail = smtp.received[0]!;
    expect(mail.user).toBeUndefined();
    expect(mail.headers.subject).toMatch(/^=\?UTF-8\?/i);
    expect(mail.headers['content-type']).toMatch(/^text\/plain/);
    expect(mail.raw).toContain('Kun tekst');
  });

  it('reports recipients the server refused while delivering to the others', async () => {
    smtp = await startSmtp({ rejectRecipient: /^nobody@/ });
    closers.push(() => smtp.close());
    const result = await transportFor(settings(smtp.port, false)).send(
      message({ to: [{ address: 'ann@example.com' }, { address: 'nobody@example.com' }], cc: [], bcc: [] }),
    );
    expect(result.accepted).toEqual(['ann@example.com']);
    expect(result.rejected).toEqual(['nobody@example.com']);
    expect(smtp.received[0]!.to).toEqual(['ann@example.com']);
  });

  it.each([
    ['wrong credentials', 'other', {}, 'authentication', true],
    ['every recipient refused', null, { rejectRecipient: /./ }, 'refused', true],
    [
      'message refused permanently',
      null,
      { rejectData: { code: 554, message: 'spam detected' } },
      'spam detected',
      true,
    ],
    ['message deferred', null, { rejectData: { code: 451, message: 'try later' } }, 'try later', false],
  ])('%s: not sent', async (_name, password, serverOpts, text, permanent) => {
    smtp = await startSmtp({ ...(password ? { user: 'mailer', password: 's3cret' } : {}), ...serverOpts });
    closers.push(() => smtp.close());
    const s = password ? { ...settings(smtp.port), password } : settings(smtp.port, false);
    const err = await transportFor(s)
      .send(message())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeliveryError);
    expect(err).toMatchObject({ code: 'upstream_failed', outcome: 'not_sent', permanent });
    expect((err as Error).message).toMatch(new RegExp(text, 'i'));
    expect(smtp.received).toHaveLength(0);
  });

  it('connection refused: not sent, retryable', async () => {
    const err = await transportFor(settings(await closedPort(), false))
      .send(message())
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'upstream_failed', outcome: 'not_sent', permanent: false });
    expect((err as Error).message).toContain('could not connect');
  });

  it('connection dropped after the message data: outcome unknown', async () => {
    const server = await startDroppingSmtp();
    closers.push(() => server.close());
    const err = await transportFor(settings(server.port, false))
      .send(message())
      .catch((e: unknown) => e);
    expect(server.dataReceived()).toBe(1);
    expect(err).toMatchObject({ code: 'upstream_failed', outcome: 'unknown' });
  });
});
