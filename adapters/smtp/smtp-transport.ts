import { createTransport } from 'nodemailer';
import { DomainError } from '../../platform/errors';
import { DeliveryError } from '../../platform/ports/delivery-error.port';
import type { EmailMessage, EmailSendResult, EmailTransport, Mailbox } from '../../platform/ports/messaging.port';
import type { SmtpSettings } from '../../platform/ports/messaging.port';

/** Nodemailer's error fields this adapter reads (see nodemailer's NodemailerError). */
interface SmtpError extends NodeJS.ErrnoException {
  response?: string;
  responseCode?: number;
  permanent?: boolean;
  originalCode?: string;
  timeoutType?: string;
}

export interface SmtpTransportOptions {
  connectionTimeoutMs?: number;
  socketTimeoutMs?: number;
  /** For tests against a local server with a self-signed certificate only. */
  rejectUnauthorized?: boolean;
  /** Pooled connections to the server (default 5). */
  maxConnections?: number;
}

// The connection never got far enough to carry a message.
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const BEFORE_SEND = new Set([
  'EAUTH',
  'ENOAUTH',
  'EOAUTH2',
  'EDNS',
  'ETLS',
  'EREQUIRETLS',
  'EENVELOPE',
  'ECONFIG',
  'EPROXY',
  'EMAXRECIPIENTS',
]);

/** Whether the failure may have happened after the message data went out (then never re-send it). */
export function smtpDeliveryError(err: unknown, where: string): DeliveryError {
  const e = err as SmtpError;
  const detail = e?.message ?? String(err);
  if (e?.code === 'EAUTH' || e?.code === 'ENOAUTH')
    return new DeliveryError(`SMTP authentication at ${where} failed: ${detail}`, 'not_sent', true);
  if (typeof e?.responseCode === 'number') {
    const permanent = e.permanent ?? (e.responseCode >= 500 && e.responseCode !== 503);
    return new DeliveryError(`SMTP server ${where} refused the message: ${detail}`, 'not_sent', permanent);
  }
  if (e?.code && BEFORE_SEND.has(e.code))
    return new DeliveryError(`could not send e-mail through ${where}: ${detail}`, 'not_sent', false);
  const early =
    (e?.originalCode && NEVER_CONNECTED.has(e.originalCode)) ||
    e?.timeoutType === 'CONNECT_TIMEOUT' ||
    e?.timeoutType === 'GREETING_TIMEOUT';
  if (early) return new DeliveryError(`could not connect to SMTP server ${where}: ${detail}`, 'not_sent', false);
  return new DeliveryError(`SMTP connection to ${where} failed while sending: ${detail}`, 'unknown', false);
}

const addr = (m: Mailbox) => (m.name ? { name: m.name, address: m.address } : m.address);
const asStrings = (list: unknown): string[] =>
  Array.isArray(list)
    ? list.map((a) => (typeof a === 'string' ? a : String((a as { address?: string }).address ?? a)))
    : [];

/** SMTP through nodemailer with a small connection pool; `close()` on shutdown. */
export function createSmtpTransport(
  settings: SmtpSettings,
  options: SmtpTransportOptions = {},
): EmailTransport & { close(): void } {
  const where = `${settings.host}:${settings.port}`;
  const transporter = createTransport({
    pool: true,
    maxConnections: options.maxConnections ?? 5,
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    ...(settings.user ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
    connectionTimeout: options.connectionTimeoutMs ?? 10_000,
    greetingTimeout: options.connectionTimeoutMs ?? 10_000,
    socketTimeout: options.socketTimeoutMs ?? 30_000,
    ...(options.rejectUnauthorized === false ? { tls: { rejectUnauthorized: false } } : {}),
  });
  return {
    defaultFrom: settings.from.name ? `${settings.from.name} <${settings.from.address}>` : settings.from.address,
    async send(message: EmailMessage): Promise<EmailSendResult> {
      if (!message.to.length) throw new DomainError('validation', 'to: at least one recipient is required');
      try {
        const info = await transporter.sendMail({
          from: addr(message.from),
          to: message.to.map(addr),
          ...(message.cc?.length ? { cc: message.cc.map(addr) } : {}),
          ...(message.bcc?.length ? { bcc: message.bcc.map(addr) } : {}),
          ...(message.replyTo ? { replyTo: addr(message.replyTo) } : {}),
          subject: message.subject,
          ...(message.html !== undefined ? { html: message.html } : {}),
          ...(message.text !== undefined ? { text: message.text } : {}),
          ...(message.messageId ? { messageId: message.messageId } : {}),
          ...(message.inReplyTo ? { inReplyTo: message.inReplyTo } : {}),
          ...(message.references?.length ? { references: message.references } : {}),
          ...(message.calendar
            ? { icalEvent: { method: message.calendar.method, content: message.calendar.content } }
            : {}),
          // Bodies are ours: never let the library read files or URLs named in them.
          disableFileAccess: true,
          disableUrlAccess: true,
        });
        return {
          messageId: String(info.messageId ?? message.messageId ?? ''),
          accepted: asStrings(info.accepted),
          rejected: asStrings(info.rejected),
        };
      } catch (err) {
        throw smtpDeliveryError(err, where);
      }
    },
    close: () => transporter.close(),
  };
}
