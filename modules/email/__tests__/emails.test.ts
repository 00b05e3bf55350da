import { Email } from '../email.entity';
import { EmailAccount } from '../email-account.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import type { Tenant, TestApp } from '../../../test/support/app';
import { connectAccount } from '../../../test/support/email';
import { makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { makeUser } from '../../../test/support/users';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';
import { withMailbox } from '../../../test/support/mail-suite';

let app: TestApp;
let smtp: LocalSmtp;
let t: Tenant;
let accountId: string;

withMailbox('E-mail', (s) => ({ app, smtp, t, accountId } = s));

const received = (subject: string) => smtp.received.filter((m) => m.headers.subject === subject);
let n = 0;
const subject = () => `Hello ${Date.now()}-${++n}`;

describe('e-mail accounts', () => {
  it('lists the mailboxes the caller can use and never returns credentials', async () => {
    const res = await t.http.get('/api/v1/email-accounts');
    expect(res.status).toBe(200);
    const mine = res.body.data.find((a: { _id: string }) => a._id === accountId);
    expect(mine).toMatchObject({
      name: 'Sales',
      displayName: 'Acme Sales',
      shared: true,
      canSend: true,
      canReceive: false,
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false },
      status: 'untested',
    });
    const text = JSON.stringify(res.body);
    for (const secret of ['s3cret-smtp', 'mailer', 'inboundSecret', 'secrets', 'whin_'])
      expect(text).not.toContain(secret);
  });

  it('stores passwords encrypted, bound to the account row', async () => {
    const row = await forkForWorkspace(app.runtime.deps.orm.em, t.workspaceId).findOneOrFail(EmailAccount, {
      _id: accountId,
    });
    expect(row.secrets).toMatch(/^v1\./);
    expect(row.secrets).not.toContain('s3cret');
    expect(row.inboundSecretHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an account listed for other users is invisible to the caller and cannot be sent from', async () => {
    const other = await makeUser(app, t.workspaceId, 'member');
    const privateAccount = String(
      (await connectAccount(app, t.workspaceId, smtp.port, { userIds: [other.userId] })).account._id,
    );
    expect((await t.http.get('/api/v1/email-accounts')).body.data.map((a: { _id: string }) => a._id)).not.toContain(
      privateAccount,
    );
    expect((await other.http.get('/api/v1/email-accounts')).body.data.map((a: { _id: string }) => a._id)).toContain(
      privateAccount,
    );
    const s = subject();
    const refused = await t.http.post('/api/v1/emails', {
      accountId: privateAccount,
      to: 'ann@example.com',
      subject: s,
      text: 'x',
    });
    expectError(refused, 400, /accountId/);
    const sent = await other.http.post('/api/v1/emails', {
      accountId: privateAccount,
      to: 'ann@example.com',
      subject: s,
      text: 'x',
    });
    expect(sent.status).toBe(201);
    // Its e-mails are the other user's: not listed or readable for the owner's key.
    expect((await t.http.get(`/api/v1/emails/${sent.body.data._id}`)).status).toBe(404);
    expect((await other.http.get(`/api/v1/emails/${sent.body.data._id}`)).status).toBe(200);
  });

  it('another workspace cannot send from the account', async () => {
    const b = await app.tenant('E-mail B');
    const res = await b.http.post('/api/v1/emails', {
      accountId,
      to: 'ann@example.com',
      subject: subject(),
      text: 'x',
    });
    expect(res.status).toBe(400);
  });
});

describe('POST /emails', () => {
  it('sends from the mailbox, records it on the person timeline and emits email_sent', async () => {
    const person = (await makePerson(t.http, { emails: [{ email: 'ann@example.com' }] })).body.data._id as string;
    const s = subject();
    const res = await t.http.post('/api/v1/emails', {
      accountId,
      to: ['Ann <ann@example.com>'],
      cc: 'boss@example.com',
      subject: s,
      html: '<p>Hi <b>Ann</b></p>',
      linkPersonId: person,
    });
    expect(res.status).toBe(201);
    const email = res.body.data;
    expect(email).toMatchObject({
      accountId,
      direction: 'outbound',
      folder: 'sent',
      status: 'sent',
      subject: s,
      to: ['ann@example.com'],
      cc: ['boss@example.com'],
      personId: person,
      threadId: email._id,
      from: `Acme Sales <${(await t.http.get('/api/v1/email-accounts')).body.data[0].emailAddress}>`,
    });
    expect(email.messageId).toMatch(/^<[0-9a-f]{24}@acme\.example>$/);
    const [mail] = received(s);
    expect(mail!.user).toBe('mailer');
    expect(mail!.headers['message-id']).toBe(email.messageId);
    expect(mail!.headers.from).toContain('Acme Sales');

    const timeline = await t.http.get(`/api/v1/people/${person}/activities`);
    expect(timeline.body.data.map((a: { summary: string; type: string }) => [a.type, a.summary])).toContainEqual([
      'email',
      s,
    ]);
    const [event] = (await eventsFor(app.runtime.deps.orm, email._id)).filter((e) => e.type === 'email_sent');
    expect(event).toMatchObject({
      entity_type: 'email',
      payload: {
        email: { _id: email._id, subject: s, to: ['ann@example.com'], threadId: email._id, messageId: email.messageId },
        links: { personId: person },
        source: 'api',
      },
    });
  });

  it('accepts to as a string and text only', async () => {
    const s = subject();
    const res = await t.http.post('/api/v1/emails', { accountId, to: 'bob@example.com', subject: s, text: 'plain' });
    expectCreated(res, { to: ['bob@example.com'], text: 'plain', html: null });
    expect(received(s)).toHaveLength(1);
  });

  it.each([
    ['bodyHtml', { bodyHtml: '<p>x</p>', html: '<p>x</p>' }, /bodyHtml/],
    ['no accountId', { accountId: undefined }, /accountId/],
    ['no to', { to: undefined }, /to/],
    ['no subject', { subject: undefined }, /subject/],
    ['no body', { text: undefined }, /html or text/],
    ['bad address', { to: 'not-an-address' }, /to/],
    ['unknown account', { accountId: '0123456789abcdef01234567' }, /accountId/],
    ['malformed account', { accountId: 'nope' }, /accountId/],
    ['unknown link', { linkPersonId: '0123456789abcdef01234567' }, /linkPersonId: no person with id/],
    ['bad replyToMessageId', { replyToMessageId: 'nothing here' }, /replyToMessageId/],
    ['trackOpens not boolean', { trackOpens: 'yes' }, /trackOpens/],
  ])('refuses %s with 400', async (_name, over, message) => {
    const s = subject();
    const res = await t.http.post('/api/v1/emails', {
      accountId,
      to: 'ann@example.com',
      subject: s,
      text: 'x',
      ...over,
    });
    expectError(res, 400, message);
    expect(received(s)).toHaveLength(0);
  });

  it('needs the write scope', async () => {
    const reader = await app.key(t.workspaceId, ['read'], 'owner');
    expect(
      (await reader.post('/api/v1/emails', { accountId, to: 'ann@example.com', subject: subject(), text: 'x' })).status,
    ).toBe(403);
    expect((await reader.get('/api/v1/emails')).status).toBe(200);
  });

  it('an Idempotency-Key sends once', async () => {
    const s = subject();
    const body = { accountId, to: 'ann@example.com', subject: s, text: 'once' };
    const key = `k-${s.replace(/\s/g, '-')}`;
    const first = await t.http.post('/api/v1/emails', body, { headers: { 'idempotency-key': key } });
    const again = await t.http.post('/api/v1/emails', body, { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data._id).toBe(first.body.data._id);
    // The API-wide Idempotency-Key layer replays the first answer as stored.
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(received(s)).toHaveLength(1);
  });

  it('threads a reply by replyToMessageId (id or Message-ID) and sets In-Reply-To and References', async () => {
    const s = subject();
    const first = (await t.http.post('/api/v1/emails', { accountId, to: 'ann@example.com', subject: s, text: 'one' }))
      .body.data;
    const second = (
      await t.http.post('/api/v1/emails', {
        accountId,
        to: 'ann@example.com',
        subject: `Re: ${s}`,
        text: 'two',
        replyToMessageId: first._id,
      })
    ).body.data;
    const third = (
      await t.http.post('/api/v1/emails', {
        accountId,
        to: 'ann@example.com',
        subject: `Re: ${s}`,
        text: 'three',
        replyToMessageId: second.messageId.slice(1, -1),
      })
    ).body.data;
    expect(second).toMatchObject({ threadId: first._id, inReplyTo: first.messageId, references: [first.messageId] });
    expect(third).toMatchObject({
      threadId: first._id,
      inReplyTo: second.messageId,
      references: [first.messageId, second.messageId],
    });
    const [mail] = received(`Re: ${s}`).filter((m) => m.headers['message-id'] === third.messageId);
    expect(mail!.headers['in-reply-to']).toBe(second.messageId);
    expect(mail!.headers.references).toBe(`${first.messageId} ${second.messageId}`);

    const thread = await t.http.get(`/api/v1/emails/threads/${first._id}`);
    expectOk(thread, { threadId: first._id, count: 3 });
    expect(thread.body.data.emails.map((e: { _id: string }) => e._id)).toEqual([first._id, second._id, third._id]);
    expect((await t.http.get('/api/v1/emails/threads/0123456789abcdef01234567')).status).toBe(404);
    // A Message-ID we never saw still threads the headers, in a new thread.
    const external = (
      await t.http.post('/api/v1/emails', {
        accountId,
        to: 'ann@example.com',
        subject: subject(),
        text: 'x',
        replyToMessageId: '<abc@elsewhere.example>',
      })
    ).body.data;
    expect(external).toMatchObject({ threadId: external._id, inReplyTo: '<abc@elsewhere.example>' });
  });

  it('a refused message is stored as failed and answers 502 without a fake success', async () => {
    const refusing = await startSmtp({ user: 'mailer', password: 's3cret-smtp', rejectRecipient: /nobody@/ });
    try {
      const acc = String((await connectAccount(app, t.workspaceId, refusing.port)).account._id);
      const res = await t.http.post('/api/v1/emails', {
        accountId: acc,
        to: 'nobody@example.com',
        subject: subject(),
        text: 'x',
      });
      expectError(res, 502, /refused/);
      const rows = await forkForWorkspace(app.runtime.deps.orm.em, t.workspaceId).find(Email, { accountId: acc });
      expect(rows.map((r) => r.status)).toEqual(['failed']);
    } finally {
      // The pooled connection to this server would keep it from closing.
      app.runtime.deps.messaging.accounts.close();
      await refusing.close();
    }
  });
});

describe('GET /emails', () => {
  it('is a strict list with filters', async () => {
    expect((await t.http.get('/api/v1/emails?bogus=1')).status).toBe(400);
    expect((await t.http.get('/api/v1/emails?limit=101')).status).toBe(400);
    expect((await t.http.get('/api/v1/emails?limit=100')).status).toBe(200);
    expect((await t.http.get('/api/v1/emails?folder=trash')).status).toBe(400);
    const person = (await makePerson(t.http)).body.data._id as string;
    const s = subject();
    const sent = (
      await t.http.post('/api/v1/emails', {
        accountId,
        to: 'ann@example.com',
        subject: s,
        text: 'findme-body',
        linkPersonId: person,
      })
    ).body.data;
    const byPerson = await t.http.get(`/api/v1/emails?personId=${person}`);
    expect(byPerson.body).toMatchObject({ total: 1, page: 1, limit: 20 });
    expect(byPerson.body.data[0]._id).toBe(sent._id);
    expect(
      (await t.http.get(`/api/v1/emails?q=${encodeURIComponent(s)}`)).body.data.map((e: { _id: string }) => e._id),
    ).toEqual([sent._id]);
    expect((await t.http.get(`/api/v1/emails?folder=inbox&personId=${person}`)).body.total).toBe(0);
    expect((await t.http.get(`/api/v1/emails?folder=sent&personId=${person}`)).body.total).toBe(1);
    expect((await t.http.get(`/api/v1/emails?accountId=${accountId}&personId=${person}`)).body.total).toBe(1);
    const summary = await t.http.get(`/api/v1/emails?personId=${person}&view=summary`);
    expect(summary.body.data[0].html).toBeUndefined();
    expect(summary.body.data[0].subject).toBe(s);
    const one = await t.http.get(`/api/v1/emails/${sent._id}`);
    expect(one.body.data).toMatchObject({ _id: sent._id, text: 'findme-body' });
    expect((await t.http.get('/api/v1/emails/nope')).status).toBe(404);
  });
});
