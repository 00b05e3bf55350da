import { ImapFlow } from 'imapflow';
import type { ImapLogin } from '../../domain/email/imap-poll';

/** One IMAP login and logout: ok, or the error prefixed with `IMAP <label>:`. */
export async function probeImap(login: ImapLogin, label: string): Promise<{ ok: boolean; error?: string }> {
  const client = new ImapFlow({
    host: login.host,
    port: login.port,
    secure: login.secure,
    logger: false,
    auth: { user: login.user, pass: login.password },
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 15_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.logout();
    return { ok: true };
  } catch (err) {
    client.close();
    return { ok: false, error: `IMAP ${label}: ${err instanceof Error ? err.message : String(err)}` };
  }
}
