import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { createSendThrottle } from '../bulk-throttle';
import type { Tenant } from '../../../test/support/app';
import { waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { connectAccount } from '../../../test/support/email';
import { makeCompany, makePerson } from '../../../test/support/factories';
import { makeUser } from '../../../test/support/users';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { expectCreated, expectError } from '../../../test/support/expect';
import { withEngine } from '../../../test/support/engine-suite';

// Bulk e-mail end to end: the API, an in-process worker on this file's task queue, a real SMTP
// server. Payloads are left unencrypted here so the history can be checked for personal data.
let h: EngineHarness;
let smtp: LocalSmtp;
let t: Tenant;
let accountId: string;
let run = 0;

beforeAll(async () => {
  smtp = await startSmtp({ user: 'mailer', password: 's3cret-smtp' });
});
withEngine('Bulk e-mail', (s) => ({ h, t } = s), {
  env: { TEMPORAL_PAYLOAD_KEYS: '', EMAIL_BULK_PER_ACCOUNT_PER_SECOND: '500', EMAIL_BULK_BATCH_SIZE: '40' },
});
beforeAll(async () => {
  accountId = String((await connectAccount(h.app, t.workspaceId, smtp.port)).account._id);
});
afterAll(() => smtp?.close());

const tag = () => `b${Date.now().toString(36)}${++run}`;
const addr = (prefix: string, i: number) => `${prefix}-${i}@bulk.example`;
const receivedBy = (address: string) => smtp.received.filter((m) => m.to.includes(address));

async function finished(queueId: string, timeoutMs = 60_000) {
  return waitFor(
    async () => {
      const res = await t.http.get(`/api/v1/emails/bulk/${queueId}`);
      return res.body.data?.status === 'completed' ? res.body : null;
    },
    timeoutMs,
    `bulk ${queueId} to complete`,
  );
}

describe('POST /emails/bulk (queued)', () => {
  it('one workflow sends one personalised e-mail per recipient; progress by queueId; no bodies or addresses in the workflow', async () => {
    const p = tag();
    const company = (await makeCompany(t.http, { name: `Nordic Bikes ${p}` })).body.data._id as string;
    const person = (await makePerson(t.http, { firstName: 'Ann', lastName: 'Berg', emails: [{ email: addr(p, 0) }] }))
      .body.data._id as string;
    const res = await t.http.post('/api/v1/emails/bulk', {
      accountId,
      subject: `Hello {{firstName | default:"there"}} ${p}`,
      bodyHtml: '<p>Hi {{contact.firstName | default:"friend"}} from {{company.name | default:"us"}}</p>',
      recipients: [
        { email: addr(p, 0), personId: person, companyId: company },
        `Bo Nielsen <${addr(p, 1)}>`,
        {
          to: addr(p, 2),
          name: 'Cy',
          personalizedSubject: `Special for Cy ${p}`,
          personalizedHtml: '<p>Only for {{name}}</p>',
        },
        addr(p, 1).toUpperCase(),
      ],
    });
    expectCreated(res, {
      queued: true,
      duplicatesRemoved: 1,
      summary: { total: 3, pending: 3, sent: 0, failed: 0 },
    });
    const queueId = res.body.data.queueId as string;
    const done = await finished(queueId);
    expect(done.data).toMatchObject({
      status: 'completed',
      summary: { total: 3, sent: 3, failed: 0, pending: 0, unknown: 0 },
      workflowId: `email-bulk:${t.workspaceId}:${queueId}`,
    });
    expect(done.data.recipients.map((r: { status: string }) => r.status)).toEqual(['sent', 'sent', 'sent']);

    const [ann] = receivedBy(addr(p, 0));
    expect(ann!.headers.subject).toBe(`Hello Ann ${p}`);
    expect(ann!.raw).toContain(`Hi Ann from Nordic Bikes ${p}`);
    expect(receivedBy(addr(p, 1))).toHaveLength(1);
    expect(receivedBy(addr(p, 1))[0]!.headers.subject).toBe(`Hello Bo ${p}`);
    expect(receivedBy(addr(p, 2))[0]!.headers.subject).toBe(`Special for Cy ${p}`);
    expect(receivedBy(addr(p, 2))[0]!.raw).toContain('Only for Cy');
    // Each recipient's e-mail is a stored e-mail, linked to the person it was for.
    const annEmail = (await t.http.get(`/api/v1/emails/${done.data.recipients[0].emailId}`)).body.data;
    expect(annEmail).toMatchObject({
      status: 'sent',
      to: [addr(p, 0)],
      personId: person,
      companyId: company,
      source: 'api',
      sourceRef: `bulk:${queueId}`,
    });

    const history = JSON.parse(historyToJSON(await h.client.workflow.getHandle(done.data.workflowId).fetchHistory()));
    // Every payload of the history (inputs, results, memo), decoded: ids and counts only.
    const decoded: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) return v.forEach(walk);
      if (!v || typeof v !== 'object') return;
      for (const [k, x] of Object.entries(v)) {
        if (k === 'data' && typeof x === 'string') decoded.push(Buffer.from(x, 'base64').toString('utf8'));
        else walk(x);
      }
    };
    walk(history);
    const text = decoded.join('\n');
    expect(text).toContain(queueId);
    for (const secret of [addr(p, 0), addr(p, 1), addr(p, 2), 'Only for', 'Hello', 'Nordic', 'Ann'])
      expect(text).not.toContain(secret);
    expect(
      JSON.parse(
        Buffer.from(
          history.events[0].workflowExecutionStartedEventAttributes.input.payloads[0].data,
          'base64',
        ).toString(),
      ),
    ).toEqual({ workspaceId: t.workspaceId, queueId });
    if (process.env.RECORD_FIXTURES)
      writeFileSync(path.join(__dirname, '../fixtures/email-bulk.history.json'), JSON.stringify(history, null, 2));
  }, 90_000);

  it('accepts 500 recipients and sends each once; 501 is 400', async () => {
    const p = tag();
    const recipients = Array.from({ length: 500 }, (_, i) => addr(p, i));
    const over = await t.http.post('/api/v1/emails/bulk', {
      accountId,
      subject: 'Too many',
      text: 'x',
      recipients: [...recipients, addr(p, 500)],
    });
    expectError(over, 400, /at most 500/);
    const res = await t.http.post('/api/v1/emails/bulk', {
      accountId,
      subject: `Five hundred ${p}`,
      text: 'Hello {{email}}',
      recipients,
    });
    expect(res.status).toBe(201);
    expect(res.body.data.summary.total).toBe(500);
    const done = await finished(res.body.data.queueId, 120_000);
    expect(done.data.summary).toEqual({ total: 500, pending: 0, sent: 500, failed: 0, unknown: 0 });
    expect(done.total).toBe(500);
    expect(done.data.recipients).toHaveLength(20);
    const mine = smtp.received.filter((m) => m.headers.subject === `Five hundred ${p}`);
    expect(mine).toHaveLength(500);
    expect(new Set(mine.map((m) => m.to[0])).size).toBe(500);
    // Progress pages through the recipients in send order.
    const page = await t.http.get(`/api/v1/emails/bulk/${res.body.data.queueId}?page=3&limit=50&status=sent`);
    expect(page.body).toMatchObject({ page: 3, limit: 50, total: 500 });
    expect(page.body.data.recipients[0]).toMatchObject({ index: 100, email: addr(p, 100), status: 'sent' });
  }, 150_000);

  it('a worker stopped in the middle of a send delivers every recipient exactly once after it is back', async () => {
    const p = tag();
    const recipients = Array.from({ length: 60 }, (_, i) => addr(p, i));
    const res = await t.http.post('/api/v1/emails/bulk', { accountId, subject: `Restart ${p}`, text: 'x', recipients });
    expect(res.status).toBe(201);
    const mine = () => smtp.received.filter((m) => m.headers.subject === `Restart ${p}`);
    await waitFor(async () => mine().length >= 5, 30_000, 'the first e-mails');
    await h.stopWorker();
    const atStop = mine().length;
    expect(atStop).toBeLessThan(60);
    await h.startWorker();
    const done = await finished(res.body.data.queueId, 90_000);
    expect(done.data.summary).toMatchObject({ total: 60, sent: 60, failed: 0, unknown: 0 });
    const to = mine().map((m) => m.to[0]);
    expect(to).toHaveLength(60);
    expect(new Set(to).size).toBe(60);
  }, 150_000);
});

describe('POST /emails/bulk (immediate)', () => {
  it('sends up to 10 recipients now and answers the results', async () => {
    const p = tag();
    const recipients = Array.from({ length: 10 }, (_, i) => ({ email: addr(p, i), name: `N${i}` }));
    const res = await t.http.post('/api/v1/emails/bulk', {
      accountId,
      subject: `Now {{name}} ${p}`,
      html: '<p>x</p>',
      recipients,
      immediate: true,
    });
    expectCreated(res, { immediate: true, summary: { total: 10, sent: 10, failed: 0, pending: 0 } });
    expect(res.body.data.results).toHaveLength(10);
    expect(res.body.data.results[3]).toMatchObject({ index: 3, email: addr(p, 3), status: 'sent' });
    // Already delivered when the response came back.
    expect(receivedBy(addr(p, 3))[0]!.headers.subject).toBe(`Now N3 ${p}`);
    const progress = await t.http.get(`/api/v1/emails/bulk/${res.body.data.queueId}`);
    expect(progress.body.data).toMatchObject({ status: 'completed', immediate: true, workflowId: null });
  });

  it('refuses immediate with 11 recipients (nothing sent)', async () => {
    const p = tag();
    const res = await t.http.post('/api/v1/emails/bulk', {
      accountId,
      subject: `Eleven ${p}`,
      text: 'x',
      immediate: true,
      recipients: Array.from({ length: 11 }, (_, i) => addr(p, i)),
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toContainEqual({ path: 'immediate', error: expect.stringMatching(/10 or fewer/) });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.filter((m) => m.headers.subject === `Eleven ${p}`)).toHaveLength(0);
  });
});

describe('POST /emails/bulk (refusals)', () => {
  it.each([
    ['no accountId', { accountId: undefined }, /accountId/],
    ['unknown account', { accountId: '0123456789abcdef01234567' }, /accountId/],
    ['no subject', { subject: undefined }, /subject/],
    ['subject with a line break', { subject: 'a\nb' }, /subject/],
    ['no body', { text: undefined }, /html/],
    ['no recipients', { recipients: undefined }, /recipients/],
    ['empty recipients', { recipients: [] }, /recipients/],
    ['bad address', { recipients: ['ok@bulk.example', 'nope'] }, /recipients\[1\]/],
    ['recipient object without email', { recipients: [{ name: 'x' }] }, /recipients/],
    [
      'unknown person',
      { recipients: [{ email: 'a@bulk.example', personId: '0123456789abcdef01234567' }] },
      /recipients\[0\]\.personId/,
    ],
    ['malformed person', { recipients: [{ email: 'a@bulk.example', personId: 'x' }] }, /personId/],
    ['immediate not boolean', { immediate: 'yes' }, /immediate/],
  ])('%s → 400', async (_name, over, message) => {
    const res = await t.http.post('/api/v1/emails/bulk', {
      accountId,
      subject: 'Refused',
      text: 'x',
      recipients: ['a@bulk.example'],
      ...over,
    });
    expectError(res, 400, message);
  });

  it('needs owner or admin and the write scope', async () => {
    const member = await makeUser(h.app, t.workspaceId, 'member');
    const body = { accountId, subject: 'x', text: 'x', recipients: ['a@bulk.example'] };
    expect((await member.http.post('/api/v1/emails/bulk', body)).status).toBe(403);
    const reader = await h.app.key(t.workspaceId, ['read'], 'owner');
    expect((await reader.post('/api/v1/emails/bulk', body)).status).toBe(403);
  });

  it('progress of another workspace, or an unknown id, is 404; unknown query parameters are 400', async () => {
    const res = await t.http.post('/api/v1/emails/bulk', {
      accountId,
      subject: 'Mine',
      text: 'x',
      recipients: [`${tag()}@bulk.example`],
      immediate: true,
    });
    const other = await h.app.tenant('Bulk other');
    expect((await other.http.get(`/api/v1/emails/bulk/${res.body.data.queueId}`)).status).toBe(404);
    expect((await t.http.get('/api/v1/emails/bulk/0123456789abcdef01234567')).status).toBe(404);
    expect((await t.http.get(`/api/v1/emails/bulk/${res.body.data.queueId}?bogus=1`)).status).toBe(400);
    expect((await t.http.get(`/api/v1/emails/bulk/${res.body.data.queueId}?limit=501`)).status).toBe(400);
  });
});

describe('per-mailbox pacing', () => {
  it('spaces sends of one account and leaves other accounts alone', async () => {
    const throttle = createSendThrottle(50);
    const started = Date.now();
    await Promise.all(Array.from({ length: 11 }, () => throttle.take('a')));
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    const other = Date.now();
    await throttle.take('b');
    expect(Date.now() - other).toBeLessThan(20);
  });
});
