/**
 * Sequence e-mails through the messaging layer: a stored template in send_email (templateId), the
 * sender mailbox (senderAccountId), tracking as the sequence's settings say, and the signed
 * unsubscribe link. Real services: an in-process worker, a local SMTP server.
 */
import { createLogger } from '../../../platform/logger';
import { enrollEntities, snapshotOf } from '../enroll.service';
import { reconcileEnrollments } from '../reconcile';
import { Sequence, SequenceEnrollment } from '../sequence.entity';
import { enrollmentWorkflowId } from '../workflow-ids';
import { createRecord } from '../../../platform/shared/records';
import { createSequenceWorkflowPort } from '../sequence-client';
import { workspaceCtx } from '../../../test/support/automations';
import { signUnsubscribeToken, unsubscribeKey, verifyUnsubscribeToken } from '../unsubscribe';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { waitFor } from '../../../test/support/automation-engine';
import { connectAccount, createTemplateToDelete } from '../../../test/support/email';
import { createSequence, line, waitNode } from '../../../test/support/sequences';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { engineSuite } from '../../../test/support/engine-suite';
import { expectOk } from '../../../test/support/expect';

let smtp: LocalSmtp;
let mailbox: { id: string; address: string };
beforeAll(async () => {
  smtp = await startSmtp({ user: 'mailer', password: 's3cret-smtp' });
});
const suite = engineSuite('Sequence messaging', {
  env: () => ({
    SMTP_URL: `smtp://mailer:s3cret-smtp@127.0.0.1:${smtp.port}`,
    MAIL_FROM: 'Fallback <fallback@example.test>',
    SEQUENCE_WAIT_SCALE: '0.001',
  }),
});
beforeAll(async () => {
  const account = (await connectAccount(suite.h.app, suite.t.workspaceId, smtp.port)).account;
  mailbox = { id: String(account._id), address: String(account.emailAddress) };
});
afterAll(() => smtp?.close());

let n = 0;
const uniqueMail = () => `ada${++n}-${Date.now().toString(36)}@example.test`;
const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
const enrollment = (id: string) =>
  forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId).findOne(SequenceEnrollment, { _id: id });

async function enrollPerson(sequenceId: string) {
  const address = uniqueMail();
  const p = (
    await suite.t.http.post('/api/v1/people', {
      firstName: 'Ada',
      lastName: 'Lovelace',
      emails: [{ email: address, label: 'work' }],
    })
  ).body.data;
  const l = (await suite.t.http.post('/api/v1/leads', { title: 'Nordic Bikes', personRef: p._id })).body.data;
  const res = await suite.t.http.post(`/api/v1/sequences/${sequenceId}/enroll`, {
    entityType: 'Lead',
    entityId: l._id,
  });
  expect(res.status).toBe(201);
  return { address, enrollmentId: res.body.data.enrollmentId as string };
}

it('send_email with templateId and senderAccountId: the template rendered for the contact, from the mailbox, tracked, with a signed unsubscribe link', async () => {
  const template = await suite.t.http.post('/api/v1/email-templates', {
    name: `Intro ${Date.now()}`,
    category: 'follow-up',
    metadata: { subject: 'Template for {{contact.firstName}}' },
    bodyHtml:
      '<p>Hello {{contact.firstName}} at {{lead.title}}, see <a href="https://example.com/offer?x=1">the offer</a></p>',
  });
  expect(template.status).toBe(201);
  const seqId = await createSequence(suite.t.http, {
    ...line([
      {
        type: 'send_email',
        data: {
          templateId: template.body.data._id,
          emailMode: 'template',
          senderAccountId: mailbox.id,
          unsubscribeLinkEnabled: true,
        },
      },
      waitNode({ waitDays: 30 }),
    ]),
    trackingSettings: { trackOpens: true, trackClicks: true },
  });
  const { address, enrollmentId } = await enrollPerson(seqId);
  const mail = await waitFor(
    async () => smtp.received.find((m) => m.to.includes(address)),
    20_000,
    'the sequence e-mail',
  );
  expect(mail.headers.subject).toBe('Template for Ada');
  expect(mail.user).toBe('mailer');
  expect(mail.from).toBe(mailbox.address);
  const raw = decoded(mail.raw);
  expect(raw).toContain('Hello Ada at Nordic Bikes');
  expect(raw).toMatch(/\/api\/track\/email\/open\/[0-9a-f]{48}\./);
  expect(raw).toMatch(/\/api\/track\/email\/click\/[0-9a-f]{48}\.[^"]+\?u=https%3A%2F%2Fexample\.com%2Foffer/);
  const link = /href="(http[^"]+\/api\/unsubscribe\/[^"]+)"/.exec(raw)![1]!;
  const token = new URL(link).pathname.split('/').pop()!;
  expect(token).toBe(`${suite.t.workspaceId}${enrollmentId}.${token.split('.')[1]}`);

  // A forged or altered token opens nothing; the genuine one exits the enrollment.
  const [ids, sig] = token.split('.') as [string, string];
  for (const bad of [
    `${ids}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`,
    `${ids.slice(0, 24)}${'0'.repeat(24)}.${sig}`,
  ]) {
    expect((await suite.h.app.anonymous.post(`/api/unsubscribe/${bad}`)).status).toBe(404);
  }
  expect((await enrollment(enrollmentId))!.status).toBe('active');
  const res = await suite.h.app.anonymous.post(new URL(link).pathname);
  expectOk(res, { unsubscribed: true });
  await waitFor(async () => (await enrollment(enrollmentId))?.status === 'exited', 20_000, 'the enrollment to exit');
  expect((await enrollment(enrollmentId))!.exitReason).toBe('unsubscribed');
}, 60_000);

it('tracking off in the sequence settings sends the body untouched (no pixel, no click redirect)', async () => {
  const seqId = await createSequence(suite.t.http, {
    ...line([
      {
        type: 'send_email',
        data: {
          subject: 'Plain {{contact.firstName}}',
          body: '<p>See <a href="https://example.com/x">x</a></p>',
          senderAccountId: mailbox.id,
        },
      },
    ]),
    trackingSettings: { trackOpens: false, trackClicks: false },
  });
  const { address } = await enrollPerson(seqId);
  const mail = await waitFor(
    async () => smtp.received.find((m) => m.to.includes(address)),
    20_000,
    'the sequence e-mail',
  );
  const raw = decoded(mail.raw);
  expect(raw).toContain('href="https://example.com/x"');
  expect(raw).not.toContain('/api/track/email/');
}, 40_000);

it('an unknown templateId is refused when the sequence is written, or fails the step permanently', async () => {
  const refused = await suite.t.http.post('/api/v1/sequences', {
    name: 'Unknown template',
    ...line([{ type: 'send_email', data: { templateId: '0123456789abcdef01234567', emailMode: 'template' } }]),
  });
  expect(refused.status).toBe(400);
  expect(refused.body.details).toEqual([
    {
      path: 'nodes[1].data.templateId',
      nodeId: 's1',
      field: 'templateId',
      error: 'no e-mail template with id 0123456789abcdef01234567 in this workspace',
    },
  ]);
  // Deleted after the sequence was written and activated: the step fails when it sends.
  const template = await createTemplateToDelete(suite.t.http);
  const seqId = await createSequence(
    suite.t.http,
    line([{ type: 'send_email', data: { templateId: template._id, emailMode: 'template' } }]),
  );
  expect((await suite.t.http.delete(`/api/v1/email-templates/${template._id}`)).status).toBeLessThan(300);
  const { enrollmentId } = await enrollPerson(seqId);
  await waitFor(async () => (await enrollment(enrollmentId))?.status === 'exited', 20_000, 'the enrollment to exit');
  expect((await enrollment(enrollmentId))!.error).toMatch(/templateId/);
}, 40_000);

it('unsubscribe tokens are HMACs of workspace and enrollment under a key from CRM_SECRETS_KEY', () => {
  const key = unsubscribeKey({ secretsKey: 'a'.repeat(64) })!;
  const ws = '6b04aaaaaaaaaaaaaaaaaaaa';
  const id = '6b04bbbbbbbbbbbbbbbbbbbb';
  const token = signUnsubscribeToken(key, ws, id);
  expect(verifyUnsubscribeToken(key, token)).toEqual({ workspaceId: ws, enrollmentId: id });
  expect(verifyUnsubscribeToken(unsubscribeKey({ secretsKey: 'b'.repeat(64) }), token)).toBeNull();
  expect(verifyUnsubscribeToken(key, token.replace(id, '6b04cccccccccccccccccccc'))).toBeNull();
  expect(verifyUnsubscribeToken(null, token)).toBeNull();
  expect(unsubscribeKey({ secretsKey: undefined })).toBeNull();
});

/** The engine's deps for the reconciler and the enroll path: the harness's ORM and workflow port. */
const reconcileDeps = () => ({
  orm: suite.h.app.runtime.deps.orm,
  log: createLogger('silent', 'test'),
  workflows: createSequenceWorkflowPort(suite.h.client, suite.h.taskQueue),
  waitScale: 0.001,
});
/** One reconciler pass over this file's workspace (with its default grace period unless `graceMs` is given). */
const reconcile = (graceMs?: number) =>
  reconcileEnrollments(reconcileDeps(), {
    workspaceIds: [suite.t.workspaceId],
    ...(graceMs === undefined ? {} : { graceMs }),
  });
const parkedOnWait = (enrollmentId: string) =>
  waitFor(
    async () => (await enrollment(enrollmentId))?.currentNodeId === 's2',
    20_000,
    'the enrollment to park on its wait',
  );

/** A sequence `send_email → wait 30 days` and a person with a fresh address, for the reconciler's orphan cases. */
async function orphanCase(subject: string) {
  const seqId = await createSequence(
    suite.t.http,
    line([
      {
        type: 'send_email',
        data: { subject: `${subject} {{contact.firstName}}`, body: '<p>x</p>', senderAccountId: mailbox.id },
      },
      waitNode({ waitDays: 30 }),
    ]),
  );
  const address = uniqueMail();
  const p = (
    await suite.t.http.post('/api/v1/people', { firstName: 'Ada', emails: [{ email: address, label: 'work' }] })
  ).body.data;
  return { seqId, address, p };
}

it('an enrollment committed without a started workflow (the enrolling process died) is started by the reconciler, once', async () => {
  const { seqId, address, p } = await orphanCase('Orphan');
  // The enroll call's transaction committed, its process died before the start: a row and no workflow.
  const ctx = await workspaceCtx(suite.h.app, suite.t.http);
  const sequence = await ctx.em.findOneOrFail(Sequence, { _id: seqId });
  const row = createRecord(ctx, SequenceEnrollment, {
    sequenceId: seqId,
    sequenceName: sequence.name,
    entityType: 'People',
    entityId: p._id,
    personId: p._id,
    links: { personId: p._id },
    exclusive: true,
    status: 'active',
    exitReason: null,
    source: 'api',
    currentNodeId: null,
    nextActionAt: null,
    pausedUntil: null,
    snapshot: snapshotOf(sequence),
    workflowId: '',
    enrolledAt: new Date(),
    finishedAt: null,
    error: null,
    enrolledBy: ctx.actor.userId,
    unsubscribeToken: `legacy-${Date.now().toString(36)}-orphan-token`,
  });
  row.workflowId = enrollmentWorkflowId(suite.t.workspaceId, row._id);
  await ctx.em.flush();
  // Within the grace period an enroll call may still be starting it: left alone.
  expect(await reconcile()).toEqual({ started: 0, checked: 0 });
  expect(await reconcile(0)).toEqual({ started: 1, checked: 1 });
  const mail = await waitFor(
    async () => smtp.received.find((m) => m.to.includes(address)),
    20_000,
    'the orphan enrollment e-mail',
  );
  expect(mail.headers.subject).toBe('Orphan Ada');
  await parkedOnWait(row._id);
  expect(await reconcile(0)).toEqual({ started: 0, checked: 0 });
  expect(smtp.received.filter((m) => m.to.includes(address))).toHaveLength(1);
}, 40_000);

it('a row the enroll path committed is queued for the starter, not an orphan of the reconciler: it runs once', async () => {
  const { seqId, address, p } = await orphanCase('Orphan two');
  const ctx = await workspaceCtx(suite.h.app, suite.t.http);
  // The enroll path commits its rows (with their start step) queued and starts nothing itself.
  const [r] = await enrollEntities(ctx, reconcileDeps(), seqId, 'People', [p._id]);
  expect(r).toMatchObject({ success: true, action: 'enrolled' });
  expect(await reconcile(0)).toEqual({ started: 0, checked: 0 });
  // The worker's starter starts it.
  await waitFor(async () => smtp.received.find((m) => m.to.includes(address)), 20_000, 'the enrollment e-mail');
  await parkedOnWait(r!.enrollmentId!);
  expect(await reconcile(0)).toEqual({ started: 0, checked: 0 });
  expect(smtp.received.filter((m) => m.to.includes(address))).toHaveLength(1);
}, 40_000);

it('emailIntervalSeconds spaces the e-mails of one mailbox across enrollments', async () => {
  const own = (await connectAccount(suite.h.app, suite.t.workspaceId, smtp.port)).account;
  const seqId = await createSequence(suite.t.http, {
    ...line([
      {
        type: 'send_email',
        data: { subject: 'Spaced {{contact.firstName}}', body: '<p>x</p>', senderAccountId: String(own._id) },
      },
    ]),
    sendSettings: { emailIntervalSeconds: 2 },
  });
  const people = await Promise.all([0, 1, 2].map(() => enrollPerson(seqId)));
  const mailTo = (address: string) => smtp.received.find((m) => m.to.includes(address));
  await waitFor(async () => people.every((p) => mailTo(p.address)), 30_000, 'three spaced e-mails');
  // Slots are reserved 2 s apart; what reaches the server also carries each send's own latency
  // (timer, activity dispatch, SMTP), which varies by several hundred ms on a loaded machine.
  // Unspaced, the three arrive within a few hundred ms of each other.
  const times = people.map((p) => mailTo(p.address)!.receivedAt).sort((a, b) => a - b);
  expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1000);
  expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(1000);
  expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(2500);
  for (const p of people) expect(smtp.received.filter((m) => m.to.includes(p.address))).toHaveLength(1);
}, 60_000);
