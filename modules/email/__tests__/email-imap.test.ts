/**
 * IMAP polling against a fake server (ImapSource): what the poller asks for, what it stores, and
 * that UID position plus Message-ID dedupe make every pass idempotent. The imapflow adapter itself
 * (adapters/imap/imap-source.ts) is not exercised here: no IMAP server can be installed on this machine.
 */
import { EmailAccount } from '../email-account.entity';
import { pollAllImapAccounts, pollImapAccount } from '../imap-poll';
import type { ImapLogin, ImapSource } from '../../../platform/ports/imap.port';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { connectAccount } from '../../../test/support/email';

let app: TestApp;
let t: Tenant;
let accountId: string;
withTestApp((s) => ({ app, t } = s), { tenant: 'IMAP' });
beforeAll(async () => {
  accountId = String(
    (
      await connectAccount(app, t.workspaceId, 2525, {
        imap: { host: 'imap.acme.example', port: 993, secure: true, user: 'inbox-user', password: 'imap-s3cret' },
      })
    ).account._id,
  );
});

const mime = (n: number, messageId = `<imap-${n}-${t.workspaceId}@example.com>`) =>
  Buffer.from(
    [
      'From: Ann <ann@example.com>',
      'To: sales@acme.example',
      `Subject: IMAP message ${n}`,
      `Message-ID: ${messageId}`,
      `Date: ${new Date().toUTCString()}`,
      'Content-Type: text/plain',
      '',
      `Body ${n}`,
      '',
    ].join('\r\n'),
  );

/** A fake IMAP INBOX: the messages on the server, and what the poller asked. */
function fakeServer(state: { uidValidity: string; messages: { uid: number; source: Buffer }[] }) {
  const calls: { login?: ImapLogin; after: number[]; closed: number } = { after: [], closed: 0 };
  const connect = (login: ImapLogin): ImapSource => {
    calls.login = login;
    return {
      open: async () => ({ uidValidity: state.uidValidity }),
      fetchAfter: async (after, limit) => {
        calls.after.push(after);
        return state.messages.filter((m) => m.uid > after).slice(0, limit);
      },
      close: async () => void calls.closed++,
    };
  };
  return { connect, calls };
}

const poll = (connect: (l: ImapLogin) => ImapSource) =>
  pollImapAccount(app.runtime.deps.orm.em, t.workspaceId, accountId, app.config.secretsKey, connect);
const inbox = async () => (await t.http.get(`/api/v1/emails?folder=inbox&accountId=${accountId}&limit=100`)).body;

it('imports new messages since the last UID, once each, with the stored login', async () => {
  const state = {
    uidValidity: '17',
    messages: [
      { uid: 1, source: mime(1) },
      { uid: 2, source: mime(2) },
    ],
  };
  const server = fakeServer(state);
  expect(await poll(server.connect)).toEqual({ imported: 2, duplicates: 0, lastUid: 2 });
  expect(server.calls.login).toEqual({
    host: 'imap.acme.example',
    port: 993,
    secure: true,
    user: 'inbox-user',
    password: 'imap-s3cret',
  });
  expect((await inbox()).data.map((e: { subject: string }) => e.subject).sort()).toEqual([
    'IMAP message 1',
    'IMAP message 2',
  ]);

  // Nothing new: asks after UID 2, stores nothing.
  expect(await poll(server.connect)).toEqual({ imported: 0, duplicates: 0, lastUid: 2 });
  state.messages.push({ uid: 5, source: mime(5) });
  expect(await poll(server.connect)).toEqual({ imported: 1, duplicates: 0, lastUid: 5 });
  expect(server.calls.after).toEqual([0, 2, 2]);
  expect(server.calls.closed).toBe(3);
  expect((await inbox()).total).toBe(3);
  const row = await forkForWorkspace(app.runtime.deps.orm.em, t.workspaceId).findOneOrFail(
    EmailAccount,
    { _id: accountId },
    { refresh: true },
  );
  expect(row).toMatchObject({ imapUidValidity: '17', imapLastUid: 5 });
});

it('a message seen again (same Message-ID, new UID) and a renumbered folder (new UIDVALIDITY) store nothing twice', async () => {
  const state = { uidValidity: '17', messages: [{ uid: 6, source: mime(1) }] };
  expect(await poll(fakeServer(state).connect)).toEqual({ imported: 0, duplicates: 1, lastUid: 6 });
  const renumbered = { uidValidity: '18', messages: [1, 2, 5].map((n, i) => ({ uid: i + 1, source: mime(n) })) };
  const server = fakeServer(renumbered);
  expect(await poll(server.connect)).toEqual({ imported: 0, duplicates: 3, lastUid: 3 });
  expect(server.calls.after).toEqual([0]);
  expect((await inbox()).total).toBe(3);
});

it('the worker pass polls every IMAP mailbox and goes on past one that fails', async () => {
  const other = await app.tenant('IMAP other');
  const otherId = String(
    (
      await connectAccount(app, other.workspaceId, 2525, {
        imap: { host: 'down.acme.example', port: 993, secure: true, user: 'u', password: 'p' },
      })
    ).account._id,
  );
  const warned: string[] = [];
  const connect = (login: ImapLogin): ImapSource =>
    login.host === 'down.acme.example'
      ? {
          open: async () => {
            throw new Error('connection refused');
          },
          fetchAfter: async () => [],
          close: async () => undefined,
        }
      : {
          open: async () => ({ uidValidity: '18' }),
          fetchAfter: async (after) => (after < 4 && login.user === 'inbox-user' ? [{ uid: 4, source: mime(9) }] : []),
          close: async () => undefined,
        };
  const imported = await pollAllImapAccounts(app.runtime.deps.orm.em, app.config.secretsKey, connect, {
    warn: (o) => void warned.push(String((o as { accountId: string }).accountId)),
    info: () => undefined,
  });
  expect(imported).toBeGreaterThanOrEqual(1);
  expect(warned).toContain(otherId);
  expect((await inbox()).data.map((e: { subject: string }) => e.subject)).toContain('IMAP message 9');
});
