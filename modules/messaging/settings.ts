import type { MailEnv, SmsEnv } from '../../platform/config';
import { parseMailbox, normalizeSmsSender } from './addresses';
import type { SmsSettings, SmtpSettings } from '../../platform/ports/messaging.port';

/** Checked provider settings from the raw env values; a `problem` becomes the not_configured message. */

export const EMAIL_NOT_CONFIGURED =
  'e-mail is not configured: set SMTP_URL (or SMTP_HOST/SMTP_PORT/SMTP_USER/SMTP_PASSWORD) and MAIL_FROM';
export const SMS_NOT_CONFIGURED =
  'SMS is not configured: set SMS_GATEWAY_URL and SMS_GATEWAY_TOKEN (and SMS_DEFAULT_FROM for a default sender)';

type Checked<T> = { settings: T } | { problem: string };

export function smtpSettings(env: MailEnv): Checked<SmtpSettings> {
  if (!env.smtpUrl && !env.smtpHost) return { problem: EMAIL_NOT_CONFIGURED };
  if (!env.from) return { problem: `${EMAIL_NOT_CONFIGURED} (MAIL_FROM is missing)` };
  const from = parseMailbox(env.from);
  if ('error' in from) return { problem: `e-mail is misconfigured: MAIL_FROM ${from.error}` };
  let host: string;
  let port: number | undefined;
  let secure: boolean | undefined;
  let user = env.smtpUser;
  let password = env.smtpPassword;
  if (env.smtpUrl) {
    let url: URL;
    try {
      url = new URL(env.smtpUrl);
    } catch {
      return {
        problem: 'e-mail is misconfigured: SMTP_URL is not a URL (smtp://user:password@host:587 or smtps://…:465)',
      };
    }
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
      return { problem: 'e-mail is misconfigured: SMTP_URL must start with smtp:// or smtps://' };
    if (!url.hostname) return { problem: 'e-mail is misconfigured: SMTP_URL has no host' };
    host = url.hostname.replace(/^\[|\]$/g, '');
    port = url.port ? Number(url.port) : undefined;
    secure = url.protocol === 'smtps:';
    if (url.username) user = decodeURIComponent(url.username);
    if (url.password) password = decodeURIComponent(url.password);
  } else {
    host = env.smtpHost!;
    port = env.smtpPort;
    secure = env.smtpSecure;
  }
  if (port !== undefined && (port < 1 || port > 65535))
    return { problem: `e-mail is misconfigured: SMTP port ${port} is out of range` };
  if (!user !== !password) return { problem: 'e-mail is misconfigured: SMTP user and password must be set together' };
  secure ??= port === 465;
  port ??= secure ? 465 : 587;
  return { settings: { host, port, secure, ...(user ? { user, password } : {}), from: from.mailbox } };
}

export function smsSettings(env: SmsEnv): Checked<SmsSettings> {
  if (!env.gatewayUrl || !env.gatewayToken) return { problem: SMS_NOT_CONFIGURED };
  let url: URL;
  try {
    url = new URL(env.gatewayUrl);
  } catch {
    return { problem: 'SMS is misconfigured: SMS_GATEWAY_URL is not a URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { problem: 'SMS is misconfigured: SMS_GATEWAY_URL must be an http(s) URL' };
  const code = env.defaultCountryCode?.replace(/^\+/, '');
  if (code !== undefined && !/^[1-9]\d{0,2}$/.test(code))
    return { problem: 'SMS is misconfigured: SMS_DEFAULT_COUNTRY_CODE must be a calling code such as 45 or +45' };
  let defaultFrom: string | undefined;
  if (env.defaultFrom) {
    const sender = normalizeSmsSender(env.defaultFrom, code);
    if ('error' in sender) return { problem: `SMS is misconfigured: SMS_DEFAULT_FROM ${sender.error}` };
    defaultFrom = sender.from;
  }
  return {
    settings: {
      url: url.href,
      token: env.gatewayToken,
      ...(defaultFrom ? { defaultFrom } : {}),
      ...(code ? { defaultCountryCode: code } : {}),
    },
  };
}
