import { createTransport } from 'nodemailer';
import { smtpDeliveryError } from './smtp-transport';

export interface SmtpProbeLogin {
  host: string;
  port: number;
  secure: boolean;
  /** No user: the server is tried without AUTH. */
  user?: string | null;
  password?: string;
}

/** One SMTP login (connect, TLS, AUTH when a user is set) that sends nothing: ok, or why not. */
export async function probeSmtp(login: SmtpProbeLogin): Promise<{ ok: boolean; error?: string }> {
  const t = createTransport({
    host: login.host,
    port: login.port,
    secure: login.secure,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 15_000,
    ...(login.user ? { auth: { user: login.user, pass: login.password ?? '' } } : {}),
  });
  try {
    await t.verify();
    return { ok: true };
  } catch (err) {
    return { ok: false, error: smtpDeliveryError(err, `${login.host}:${login.port}`).message };
  } finally {
    t.close();
  }
}
