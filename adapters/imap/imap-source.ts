/** The imapflow adapter of ImapSource (domain/email/imap-poll.ts): INBOX, UID ranges, raw message sources. */
import { ImapFlow } from 'imapflow';
import type { ImapLogin, ImapSource } from '../../platform/ports/imap.port';

/** An imapflow client for `login` (quiet, bounded timeouts; errors surface through the awaited calls). */
export function imapClient(login: ImapLogin, socketTimeoutMs: number): ImapFlow {
  const client = new ImapFlow({
    host: login.host,
    port: login.port,
    secure: login.secure,
    logger: false,
    auth: { user: login.user, pass: login.password },
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: socketTimeoutMs,
  });
  client.on('error', () => undefined);
  return client;
}

export function imapflowSource(login: ImapLogin): ImapSource {
  const client = imapClient(login, 60_000);
  return {
    async open() {
      await client.connect();
      const box = await client.mailboxOpen('INBOX', { readOnly: true });
      return { uidValidity: String(box.uidValidity) };
    },
    async fetchAfter(afterUid, limit) {
      const out: { uid: number; source: Buffer }[] = [];
      for await (const m of client.fetch(`${afterUid + 1}:*`, { uid: true, source: true }, { uid: true })) {
        // `n:*` also answers the last message when none is newer: skip what is not after afterUid.
        if (m.uid > afterUid && m.source) out.push({ uid: m.uid, source: m.source });
        if (out.length >= limit) break;
      }
      return out.sort((a, b) => a.uid - b.uid);
    },
    async close() {
      await client.logout().catch(() => client.close());
    },
  };
}
