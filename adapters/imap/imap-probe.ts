import type { ImapLogin } from '../../platform/ports/imap.port';
import { imapClient } from './imap-source';

/** One IMAP login and logout: ok, or the error prefixed with `IMAP <label>:`. */
export async function probeImap(login: ImapLogin, label: string): Promise<{ ok: boolean; error?: string }> {
  const client = imapClient(login, 15_000);
  try {
    await client.connect();
    await client.logout();
    return { ok: true };
  } catch (err) {
    client.close();
    return { ok: false, error: `IMAP ${label}: ${err instanceof Error ? err.message : String(err)}` };
  }
}
