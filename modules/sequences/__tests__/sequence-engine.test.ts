/**
 * Enrollments against the real services: an in-process worker on this file's task queue, a local
 * SMTP server and SMS gateway, and a dispatcher for exit events. Waits run at 1/1000 of their
 * length (SEQUENCE_WAIT_SCALE, honoured only under CRM_TEST): one hour of wait is 3.6 s.
 */
import { CalendarEvent } from '../../calendar/calendar-event.entity';
import { Lead } from '../../leads/lead.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { OutboxEvent } from '../../../platform/outbox/outbox-event.entity';
import { SequenceEnrollment, SequenceStep } from '../sequence.entity';
import { waitFor } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';
import { workspaceCtx } from '../../../test/support/automations';
import { emitUndeclared } from '../../../test/support/outbox';
import { createSequence, emailNode, line, sequenceEngineEnv, waitNode } from '../../../test/support/sequences';
import { json, startHttp, type LocalHttp } from '../../../test/unit/messaging/local-http';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { expectCreated } from '../../../test/support/expect';
import { graphNode } from '../../../test/support/definitions';

let smtp: LocalSmtp;
let gateway: LocalHttp;
beforeAll(async () => {
  smtp = await startSmtp();
  gateway = await startHttp();
  gateway.respond(json(200, { id: 'sms-1', status: 'sent' }));
});
const suite = engineSuite('Sequence engine', {
  env: () => ({
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    MAIL_FROM: 'Sales <sales@example.test>',
    ...sequenceEngineEnv(gateway),
  }),
});
beforeAll(() => suite.h.dispatcher([suite.t.workspaceId]).start());
afterAll(async () => {
  await smtp?.close();
  await gateway?.close();
});

const em = () => forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId);
const enrollmentRow = (id: string) => em().findOne(SequenceEnrollment, { _id: id });
/** Whether the enrollment's workflow has completed (its run ended). */
const workflowCompleted = async (id: string) =>
  (await suite.h.client.workflow.getHandle(`sequence-enrollment:${suite.t.workspaceId}:${id}`).describe()).status
    .name === 'COMPLETED';
const stepsOf = async (id: string) =>
  em().find(SequenceStep, { enrollmentId: id }, { orderBy: { startedAt: 'asc', _id: 'asc' } });
const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));
const smsTo = (phone: string) => gateway.requests.filter((r) => JSON.parse(r.body || '{}').to === phone);
let n = 0;
const uniqueMail = (p = 'c') => `${p}${++n}-${Date.now().toString(36)}@example.test`;

async function person(body: Record<string, unknown> = {}) {
  const res = await suite.t.http.post('/api/v1/people', {
    firstName: 'Ada',
    lastName: 'Lovelace',
    emails: [{ email: uniqueMail('ada'), label: 'work' }],
    phones: [{ phone: `+45 ${20000000 + ++n}`, label: 'mobile' }],
    ...body,
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data;
}
async function lead(body: Record<string, unknown> = {}) {
  const res = await suite.t.http.post('/api/v1/leads', { title: 'Nordic Bikes', ...body });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data;
}
async function enroll(sequenceId: string, entityType: string, entityId: string, extra: Record<string, unknown> = {}) {
  const res = await suite.t.http.post(`/api/v1/sequences/${sequenceId}/enroll`, { entityType, entityId, ...extra });
  if (res.status !== 201) throw new Error(`enroll: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.enrollmentId as string;
}
const untilStatus = (id: string, statuses: string[], ms = 20_000) =>
  waitFor(
    async () => {
      const e = await enrollmentRow(id);
      return e && statuses.includes(e.status) ? e : null;
    },
    ms,
    `enrollment ${id} to be ${statuses.join('/')}`,
  );
const untilStep = (id: string, nodeId: string, statuses: string[], ms = 20_000) =>
  waitFor(
    async () => (await stepsOf(id)).find((s) => s.nodeId === nodeId && statuses.includes(s.status)),
    ms,
    `step ${nodeId} ${statuses.join('/')}`,
  );
const eventsOf = async (enrollmentId: string) =>
  (
    await suite.h.app.runtime.deps.orm.em
      .fork()
      .find(OutboxEvent, { entityId: enrollmentId }, { orderBy: { id: 'asc' } as never })
  ).map((e) => e.type);

async function emitEvent(type: string, entityType: string, entityId: string, payload: Record<string, unknown>) {
  const ctx = await workspaceCtx(suite.h.app, suite.t.http);
  emitUndeclared(ctx, { type, entityType, entityId, payload });
  await ctx.em.flush();
}

describe('an enrollment walks every kind of node', () => {
  it('send_email → wait → condition → create_task → update_field → send_sms → stop, mirrored to Postgres', async () => {
    const p = await person();
    const l = await lead({ personRef: p._id, status: 'new' });
    const seqId = await createSequence(suite.t.http, {
      name: 'Full walk',
      nodes: [
        graphNode('start', 'start', [0, 0], {}),
        graphNode('mail', 'send_email', [1, 0], {
          subject: 'Hi {{contact.firstName}} from {{workspace.name}}',
          body: '<p>About {{lead.title}} &amp; {{system.currentDate|default:today}}</p>',
        }),
        graphNode('pause', 'wait', [2, 0], { waitHours: 1 }),
        graphNode('check', 'condition', [3, 0], { field: 'lead.status', operator: 'equals', value: 'new' }),
        graphNode('task', 'create_task', [4, 0], { title: 'Call {{contact.fullName}}', dueInDays: 0 }),
        graphNode('status', 'update_field', [5, 0], { fieldPath: 'lead.status', value: 'contacted' }),
        graphNode('text', 'send_sms', [6, 0], {
          message: 'Hi {{contact.firstName}}, opened: {{stepHistory.lastEmail.opened}}',
          phoneField: 'mobile',
          senderType: 'alphanumeric',
          senderId: 'ACMESales',
        }),
        graphNode('end', 'stop', [7, 0], {}),
        graphNode('never', 'send_email', [4, 1], { subject: 'never', body: 'never' }),
      ],
      edges: [
        { id: 'e1', source: 'start', target: 'mail' },
        { id: 'e2', source: 'mail', target: 'pause' },
        { id: 'e3', source: 'pause', target: 'check' },
        { id: 'e4', source: 'check', target: 'task', sourceHandle: 'true' },
        { id: 'e5', source: 'check', target: 'never', sourceHandle: 'false' },
        { id: 'e6', source: 'task', target: 'status' },
        { id: 'e7', source: 'status', target: 'text' },
        { id: 'e8', source: 'text', target: 'end' },
      ],
    });
    const enrolledAt = Date.now();
    const id = await enroll(seqId, 'Lead', l._id);
    // Parked on the wait: one e-mail out, the wait mirrored with its end time.
    const waiting = await untilStep(id, 'pause', ['waiting']);
    const row = await enrollmentRow(id);
    expect(row).toMatchObject({ status: 'active', currentNodeId: 'pause', personId: p._id });
    expect(row!.nextActionAt!.getTime()).toBe(new Date((waiting.output as { until: string }).until).getTime());
    const address = p.emails[0].email;
    expect(mailsTo(address)).toHaveLength(1);
    expect(mailsTo(address)[0]!.headers.subject).toBe('Hi Ada from Sequence engine');
    expect(mailsTo(address)[0]!.raw).toContain('About Nordic Bikes &amp; 20');

    const done = await untilStatus(id, ['completed']);
    expect(done.finishedAt).not.toBeNull();
    const steps = await stepsOf(id);
    expect(steps.map((s) => [s.nodeId, s.status])).toEqual([
      ['start', 'completed'],
      ['mail', 'completed'],
      ['pause', 'completed'],
      ['check', 'completed'],
      ['task', 'completed'],
      ['status', 'completed'],
      ['text', 'completed'],
      ['end', 'completed'],
    ]);
    expect(steps.find((s) => s.nodeId === 'check')!.handle).toBe('true');
    // The wait really waited (3.6 s at the test scale) on a durable timer.
    const pauseStep = steps.find((s) => s.nodeId === 'pause')!;
    expect(
      steps.find((s) => s.nodeId === 'check')!.startedAt.getTime() - pauseStep.startedAt.getTime(),
    ).toBeGreaterThanOrEqual(3500);
    expect(mailsTo(address)).toHaveLength(1);
    // create_task is a calendar event due in 1 day (a stored 0 means 1).
    const event = await em().findOneOrFail(CalendarEvent, {
      _id: (steps.find((s) => s.nodeId === 'task')!.output as { eventId: string }).eventId,
    });
    expect(event.title).toBe('Call Ada Lovelace');
    expect(event.start.getTime() - enrolledAt).toBeGreaterThan(86_400_000 - 60_000);
    expect((await em().findOneOrFail(Lead, { _id: l._id })).status).toBe('contacted');
    const sms = smsTo(p.phones[0].phone.replace(/\s/g, ''));
    expect(sms).toHaveLength(1);
    expect(JSON.parse(sms[0]!.body)).toMatchObject({ from: 'ACMESales', message: 'Hi Ada, opened: false' });
    expect(await eventsOf(id)).toEqual(['sequence_enrolled', 'sequence_completed']);

    const stats = (await suite.t.http.get(`/api/v1/sequences/${seqId}/stats`)).body.data;
    expect(stats.stats).toMatchObject({ totalEnrolled: 1, completed: 1, active: 0 });
    expect(stats.enrollmentCounts).toEqual([{ _id: 'completed', count: 1 }]);
    expect(stats.stats.steps.find((s: { nodeId: string }) => s.nodeId === 'mail')).toMatchObject({
      sent: 1,
      completed: 1,
    });
    expect(stats.stats.steps.find((s: { nodeId: string }) => s.nodeId === 'never')).toMatchObject({
      sent: 0,
      completed: 0,
    });
    const one = (await suite.t.http.get(`/api/v1/sequences/enrollments/${id}`)).body.data;
    expect(one).toMatchObject({
      _id: id,
      status: 'completed',
      entityType: 'Lead',
      entityId: l._id,
      source: 'api',
      sequenceVersion: 1,
    });
    expect(one.steps).toHaveLength(8);
    expect((await suite.t.http.get(`/api/v1/sequences/${seqId}/enrollments?status=completed`)).body).toMatchObject({
      total: 1,
      data: [{ _id: id }],
    });

    // The workflow is findable by its search attributes; the sequence name is in the memo.
    const wf = await suite.h.client.workflow.getHandle(`sequence-enrollment:${suite.t.workspaceId}:${id}`).describe();
    expect(wf.type).toBe('sequenceEnrollmentWorkflow');
    expect(wf.memo).toMatchObject({ sequenceName: 'Full walk', enrollmentId: id });
    expect(wf.typedSearchAttributes.get({ name: 'CrmSequenceId', type: 'KEYWORD' } as never)).toBe(seqId);
    expect(wf.typedSearchAttributes.get({ name: 'CrmEntityId', type: 'KEYWORD' } as never)).toBe(l._id);
  }, 60_000);

  it('a condition that fails takes the false branch; a send without a recipient is skipped, not failed', async () => {
    const l = await lead({ title: 'No contact' });
    const seqId = await createSequence(suite.t.http, {
      nodes: [
        graphNode('start', 'start', [0, 0], {}),
        graphNode('check', 'condition', [1, 0], { field: 'lead.score', operator: 'greater_than', value: 50 }),
        graphNode('hot', 'create_task', [2, 0], { taskTitle: 'Hot' }),
        graphNode('mail', 'send_email', [2, 1], { subject: 'x', body: 'y' }),
      ],
      edges: [
        { id: 'e1', source: 'start', target: 'check' },
        { id: 'e2', source: 'check', target: 'hot', sourceHandle: 'true' },
        { id: 'e3', source: 'check', target: 'mail', sourceHandle: 'false' },
      ],
    });
    const id = await enroll(seqId, 'Lead', l._id);
    await untilStatus(id, ['completed']);
    const steps = await stepsOf(id);
    expect(steps.map((s) => [s.nodeId, s.status, s.handle])).toEqual([
      ['start', 'completed', null],
      ['check', 'completed', 'false'],
      ['mail', 'skipped', null],
    ]);
    expect(steps[2]!.output).toMatchObject({ skipped: true, reason: expect.stringContaining('no e-mail address') });
  }, 30_000);

  it('a company enrollment mails the contacts chosen by companyContactSelection, with the company address as fallback', async () => {
    const company = (await suite.t.http.post('/api/v1/companies', { name: 'Selection A/S', email: uniqueMail('info') }))
      .body.data;
    const ceo = await person({ firstName: 'Cleo', title: 'CEO', companyId: company._id });
    await person({ firstName: 'Dev', title: 'Developer', companyId: company._id });
    const empty = (await suite.t.http.post('/api/v1/companies', { name: 'Empty ApS', email: uniqueMail('empty') })).body
      .data;
    const seqId = await createSequence(
      suite.t.http,
      line([
        emailNode({
          subject: 'Hi {{company.name}}',
          recipientType: 'company',
          companyContactSelection: { mode: 'beslutningstagere', fallback: 'company_email' },
        }),
      ]),
    );
    const a = await enroll(seqId, 'Company', company._id);
    const b = await enroll(seqId, 'Company', empty._id);
    await untilStatus(a, ['completed']);
    await untilStatus(b, ['completed']);
    expect(mailsTo(ceo.emails[0].email)).toHaveLength(1);
    expect(mailsTo(company.email)).toHaveLength(0);
    expect(mailsTo(empty.email)).toHaveLength(1);
    expect((await stepsOf(b)).find((s) => s.nodeId === 's1')!.output).toMatchObject({ via: 'company_fallback' });
  }, 30_000);

  it('sendCondition false skips the send; running enrollments keep the snapshot they started with', async () => {
    const p = await person();
    const l = await lead({ personRef: p._id, status: 'lost' });
    const seqId = await createSequence(
      suite.t.http,
      line([
        emailNode({
          subject: 'Skipped',
          sendCondition: { enabled: true, field: 'lead.status', operator: 'not_equals', value: 'lost' },
        }),
        waitNode({ waitHours: 1 }),
        emailNode({ subject: 'Version one' }),
      ]),
    );
    const id = await enroll(seqId, 'Lead', l._id);
    await untilStep(id, 's2', ['waiting']);
    const put = await suite.t.http.put(
      `/api/v1/sequences/${seqId}`,
      line([emailNode({ subject: 'Skipped' }), waitNode({ waitHours: 1 }), emailNode({ subject: 'Version two' })]),
    );
    expect(put.body.data.version).toBe(2);
    await untilStatus(id, ['completed']);
    expect(mailsTo(p.emails[0].email).map((m) => m.headers.subject)).toEqual(['Version one']);
    expect((await stepsOf(id))[1]).toMatchObject({
      nodeId: 's1',
      status: 'skipped',
      output: { reason: 'sendCondition not met' },
    });
  }, 30_000);
});

describe('send_sms with an SMS template (smsMode template, templateId)', () => {
  const smsTemplate = async (message: string, http = suite.t.http) => {
    const res = await http.post('/api/v1/sms-templates', { name: `Tpl ${++n}-${Date.now().toString(36)}`, message });
    expect(res.status).toBe(201);
    return res.body.data._id as string;
  };
  const smsNode = (data: Record<string, unknown>) => ({ type: 'send_sms', data: { phoneField: 'mobile', ...data } });

  it('a templateId must name an SMS template of this workspace: 400 with details on create, update and toggle', async () => {
    const other = await suite.h.app.tenant('Other SMS templates');
    const foreign = await smsTemplate('Not yours', other.http);
    const emailTpl = (
      await suite.t.http.post('/api/v1/email-templates', { name: `Mail ${Date.now()}`, bodyHtml: '<p>x</p>' })
    ).body.data._id as string;
    const mine = await smsTemplate('Hi {{contact.firstName}}');
    for (const templateId of ['0123456789abcdef01234567', foreign, emailTpl, 'not-an-id']) {
      const res = await suite.t.http.post('/api/v1/sequences', {
        name: 'Bad template',
        ...line([smsNode({ smsMode: 'template', templateId })]),
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        {
          path: 'nodes[1].data.templateId',
          nodeId: 's1',
          field: 'templateId',
          error: `no SMS template with id ${templateId} in this workspace`,
        },
      ]);
    }
    // An SMS template id in send_email is not an e-mail template either.
    const wrongChannel = await suite.t.http.post('/api/v1/sequences', {
      name: 'Bad template',
      ...line([{ type: 'send_email', data: { templateId: mine } }]),
    });
    expect(wrongChannel.body.details).toEqual([
      {
        path: 'nodes[1].data.templateId',
        nodeId: 's1',
        field: 'templateId',
        error: `no e-mail template with id ${mine} in this workspace`,
      },
    ]);
    // A templateId alone is template mode: no message needed.
    const seqId = await createSequence(suite.t.http, line([smsNode({ templateId: mine })]), { active: false });
    const put = await suite.t.http.put(
      `/api/v1/sequences/${seqId}`,
      line([smsNode({ smsMode: 'template', templateId: foreign })]),
    );
    expect(put.status).toBe(400);
    expect(put.body.details).toEqual([
      {
        path: 'nodes[1].data.templateId',
        nodeId: 's1',
        field: 'templateId',
        error: `no SMS template with id ${foreign} in this workspace`,
      },
    ]);
    // Deleted after it was written: activation refuses it.
    expect((await suite.t.http.delete(`/api/v1/sms-templates/${mine}`)).status).toBe(200);
    const toggle = await suite.t.http.post(`/api/v1/sequences/${seqId}/toggle`);
    expect(toggle.status).toBe(400);
    expect(toggle.body.details).toEqual([
      {
        path: 'nodes[1].data.templateId',
        nodeId: 's1',
        field: 'templateId',
        error: `no SMS template with id ${mine} in this workspace`,
      },
    ]);
  });

  it('the template is rendered with the sequence placeholders when the step sends; an edit reaches later sends; a deleted one fails the step', async () => {
    const p = await person({ firstName: 'Grace' });
    const l = await lead({ personRef: p._id, title: 'Harbour Cafe' });
    const templateId = await smsTemplate('Hi {{contact.firstName}}, about {{lead.title}} ({{workspace.name}})');
    const seqId = await createSequence(
      suite.t.http,
      line([
        smsNode({ smsMode: 'template', templateId, senderType: 'alphanumeric', senderId: 'ACMESales' }),
        waitNode({ waitHours: 1 }),
        smsNode({ templateId, senderType: 'alphanumeric', senderId: 'ACMESales' }),
        waitNode({ waitHours: 1 }),
        smsNode({ templateId, senderType: 'alphanumeric', senderId: 'ACMESales' }),
      ]),
    );
    const id = await enroll(seqId, 'Lead', l._id);
    const phone = p.phones[0].phone.replace(/\s/g, '');
    await untilStep(id, 's2', ['waiting']);
    expect(smsTo(phone).map((r) => JSON.parse(r.body))).toEqual([
      expect.objectContaining({ from: 'ACMESales', message: 'Hi Grace, about Harbour Cafe (Sequence engine)' }),
    ]);
    // Like an e-mail template, the step refers to the template and reads it when it sends.
    expect(
      (
        await suite.t.http.put(`/api/v1/sms-templates/${templateId}`, {
          message: 'Still there, {{contact.firstName}}?',
        })
      ).status,
    ).toBe(200);
    await untilStep(id, 's4', ['waiting']);
    expect(smsTo(phone).map((r) => JSON.parse(r.body).message)).toEqual([
      'Hi Grace, about Harbour Cafe (Sequence engine)',
      'Still there, Grace?',
    ]);
    expect((await suite.t.http.delete(`/api/v1/sms-templates/${templateId}`)).status).toBe(200);
    const exited = await untilStatus(id, ['exited']);
    expect(exited.exitReason).toBe('error');
    expect(exited.error).toContain(`send_sms.templateId: no SMS template ${templateId} in this workspace`);
    expect((await stepsOf(id)).find((s) => s.nodeId === 's5')).toMatchObject({ status: 'failed' });
    expect(smsTo(phone)).toHaveLength(2);
  }, 40_000);
});

describe('duplicate handling under concurrent enrolls (a database constraint, not read-then-write)', () => {
  const parallel = (seqId: string, leadId: string, k: number) =>
    Promise.all(
      Array.from({ length: k }, () =>
        suite.t.http.post(`/api/v1/sequences/${seqId}/enroll`, { entityType: 'Lead', entityId: leadId }),
      ),
    );
  const running = async (seqId: string, leadId: string) =>
    em().count(SequenceEnrollment, { sequenceId: seqId, entityId: leadId, status: { $in: ['active', 'paused'] } });
  const longSequence = (duplicateHandling: string) =>
    createSequence(suite.t.http, { ...line([waitNode({ waitDays: 30 }), emailNode()]), duplicateHandling });

  it('block: exactly one of 6 concurrent enrolls wins, the others are 409; eligibility says already_enrolled', async () => {
    const seqId = await longSequence('block');
    const l = await lead();
    const res = await parallel(seqId, l._id, 6);
    expect(res.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect(res.find((r) => r.status === 409)!.body).toMatchObject({
      code: 'conflict',
      details: { code: 'already_enrolled' },
    });
    expect(await running(seqId, l._id)).toBe(1);
    expect(
      (await suite.t.http.get(`/api/v1/sequences/${seqId}/enroll-eligibility?entityType=Lead&entityId=${l._id}`)).body
        .data,
    ).toEqual({ eligible: false, reason: 'already_enrolled' });
    // forceRestart overrides block.
    const forced = await suite.t.http.post(`/api/v1/sequences/${seqId}/enroll`, {
      entityType: 'Lead',
      entityId: l._id,
      forceRestart: true,
    });
    expect(forced.body.data).toMatchObject({ ok: true, action: 'restarted' });
    expect(await running(seqId, l._id)).toBe(1);
  }, 30_000);

  it('block_with_restart: 6 concurrent enrolls all succeed and leave exactly one running; the replaced runs exit (restarted)', async () => {
    const seqId = await longSequence('block_with_restart');
    const l = await lead();
    const first = await enroll(seqId, 'Lead', l._id);
    await untilStep(first, 's1', ['waiting']);
    const res = await parallel(seqId, l._id, 6);
    expect(res.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(res.every((r) => r.body.data.action === 'restarted')).toBe(true);
    expect(await running(seqId, l._id)).toBe(1);
    const all = await em().find(SequenceEnrollment, { sequenceId: seqId, entityId: l._id });
    expect(all).toHaveLength(7);
    expect(all.filter((e) => e.status === 'exited').every((e) => e.exitReason === 'restarted')).toBe(true);
    // The first run's workflow got the exit and closed.
    await waitFor(() => workflowCompleted(first), 15_000, 'the replaced workflow to end');
    expect((await enrollmentRow(first))!.status).toBe('exited');
  }, 40_000);

  it('allow_multiple: concurrent enrolls run side by side', async () => {
    const seqId = await longSequence('allow_multiple');
    const l = await lead();
    const res = await parallel(seqId, l._id, 4);
    expect(res.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(await running(seqId, l._id)).toBe(4);
    expect(
      (await suite.t.http.get(`/api/v1/sequences/${seqId}/enroll-eligibility?entityType=Lead&entityId=${l._id}`)).body
        .data,
    ).toEqual({ eligible: true, reason: 'already_enrolled_parallel_allowed' });
  }, 30_000);

  it('bulk: each entity is independent (found, missing, already enrolled)', async () => {
    const seqId = await longSequence('block');
    const a = await lead();
    const b = await lead();
    await enroll(seqId, 'Lead', b._id);
    const res = await suite.t.http.post(`/api/v1/sequences/${seqId}/enroll`, {
      entityType: 'Lead',
      entityIds: [a._id, b._id, '0123456789abcdef01234567'],
      source: 'import',
    });
    expectCreated(res, { enrolled: 1, failed: 2 });
    expect(res.body.data.results.map((r: { entityId: string; success: boolean }) => [r.entityId, r.success])).toEqual([
      [a._id, true],
      [b._id, false],
      ['0123456789abcdef01234567', false],
    ]);
    const row = await enrollmentRow(res.body.data.results[0].enrollmentId);
    expect(row!.source).toBe('import');
  }, 30_000);
});

describe('a wait after a slow step ends on time', () => {
  it('a send retried for 3 s (the workflow clock lags by it) does not make the wait after it end 3 s late', async () => {
    const p = await person();
    const l = await lead({ personRef: p._id });
    const seqId = await createSequence(
      suite.t.http,
      line([{ type: 'send_sms', data: { phoneField: 'mobile', message: 'Hi' } }, waitNode({ waitHours: 1 })]),
    );
    // Refused twice, then sent: the step's retries (1 s, then 2 s later) run inside one workflow task.
    let calls = 0;
    gateway.respond((req, res) => {
      calls += 1;
      return calls <= 2
        ? json(503, { error: 'busy' })(req, res)
        : json(200, { id: 'sms-late', status: 'sent' })(req, res);
    });
    try {
      const id = await enroll(seqId, 'Lead', l._id);
      // One hour is 3.6 s here (SEQUENCE_WAIT_SCALE).
      const done = await untilStep(id, 's2', ['completed'], 30_000);
      const late = done.endedAt!.getTime() - Date.parse(done.output!.until as string);
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(1500);
      expect(calls).toBe(3);
    } finally {
      gateway.respond(json(200, { id: 'sms-1', status: 'sent' }));
    }
  }, 40_000);
});

describe('pause, resume, unenroll (workflow updates)', () => {
  it('pause → 409 on a second pause → resume → unenroll (exited, manual) → 409', async () => {
    const l = await lead();
    const seqId = await createSequence(suite.t.http, line([waitNode({ waitDays: 30 }), emailNode()]));
    const id = await enroll(seqId, 'Lead', l._id);
    await untilStep(id, 's1', ['waiting']);
    const base = `/api/v1/sequences/enrollments/${id}`;
    expect((await suite.t.http.post(`${base}/resume`)).status).toBe(409);
    expect((await suite.t.http.post(`${base}/pause`)).body).toEqual({ data: { paused: true } });
    expect((await enrollmentRow(id))!.status).toBe('paused');
    const again = await suite.t.http.post(`${base}/pause`);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invalid_state');
    expect((await suite.t.http.post(`${base}/resume`)).body).toEqual({ data: { resumed: true } });
    expect((await enrollmentRow(id))!.status).toBe('active');
    expect((await suite.t.http.post(`${base}/unenroll`)).body).toEqual({ data: { unenrolled: true } });
    expect(await enrollmentRow(id)).toMatchObject({ status: 'exited', exitReason: 'manual' });
    for (const action of ['pause', 'resume', 'unenroll'])
      expect((await suite.t.http.post(`${base}/${action}`)).status).toBe(409);
    expect(await eventsOf(id)).toEqual([
      'sequence_enrolled',
      'sequence_paused',
      'sequence_resumed',
      'sequence_unenrolled',
    ]);
    await waitFor(() => workflowCompleted(id), 10_000, 'workflow end');
    expect((await suite.t.http.post(`${base}/pause`, { durationDays: 0 })).status).toBe(400);
    expect((await suite.t.http.post(`${base}/pause`, { durationDays: 366 })).status).toBe(400);
    expect((await suite.t.http.post('/api/v1/sequences/enrollments/0123456789abcdef01234567/pause')).status).toBe(404);
  }, 30_000);

  it('pause with durationDays resumes by itself; a pause holds sends until then', async () => {
    const p = await person();
    const l = await lead({ personRef: p._id });
    const seqId = await createSequence(
      suite.t.http,
      line([waitNode({ waitHours: 1 }), emailNode({ subject: 'After the pause' })]),
    );
    const id = await enroll(seqId, 'Lead', l._id);
    await untilStep(id, 's1', ['waiting']);
    // 0.002 days = 172.8 s, 0.17 s at the test scale... use 0.05 days = 4.32 s.
    const paused = await suite.t.http.post(`/api/v1/sequences/enrollments/${id}/pause`, { durationDays: 0.05 });
    expect(paused.status).toBe(200);
    const row = await enrollmentRow(id);
    expect(row!.status).toBe('paused');
    expect(row!.pausedUntil).not.toBeNull();
    await new Promise((r) => setTimeout(r, 3700)); // the wait (3.6 s) is over, but the pause holds
    expect(mailsTo(p.emails[0].email)).toHaveLength(0);
    await untilStatus(id, ['completed'], 20_000);
    expect(mailsTo(p.emails[0].email)).toHaveLength(1);
    // The wait's output reports how long it really held (the pause kept it past its 3.6 s), not the plan.
    const wait = (await stepsOf(id)).find((s) => s.nodeId === 's1')!;
    expect(wait.output).toMatchObject({ ms: 3600 });
    expect((wait.output as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(4000);
    expect(await eventsOf(id)).toEqual([
      'sequence_enrolled',
      'sequence_paused',
      'sequence_resumed',
      'sequence_completed',
    ]);
  }, 40_000);
});

describe('exit conditions from outbox events', () => {
  const parked = async (settings: Record<string, unknown> = {}) => {
    const p = await person();
    const l = await lead({ personRef: p._id, status: 'new' });
    const seqId = await createSequence(suite.t.http, {
      ...line([waitNode({ waitDays: 30 }), emailNode()]),
      ...settings,
    });
    const id = await enroll(seqId, 'Lead', l._id);
    await untilStep(id, 's1', ['waiting']);
    return { p, l, seqId, id };
  };

  it('email_replied exits the enrollments of that person (email_reply); others are untouched', async () => {
    const a = await parked();
    const b = await parked();
    await emitEvent('email_replied', 'email', '0123456789abcdef01234567', {
      email: { _id: '0123456789abcdef01234567' },
      links: { personId: a.p._id },
      inReplyTo: { emailId: '0123456789abcdef01234568' },
    });
    expect(await untilStatus(a.id, ['exited'])).toMatchObject({ exitReason: 'email_reply' });
    expect(await eventsOf(a.id)).toEqual(['sequence_enrolled', 'sequence_exited']);
    await new Promise((r) => setTimeout(r, 500));
    expect((await enrollmentRow(b.id))!.status).toBe('active');
  }, 30_000);

  it('onEmailReply false keeps the enrollment running', async () => {
    const a = await parked({ exitConditions: { onEmailReply: false } });
    await emitEvent('email_replied', 'email', '0123456789abcdef01234567', { links: { leadId: a.l._id } });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await enrollmentRow(a.id))!.status).toBe('active');
  }, 30_000);

  it.each([
    ['sms_received', 'sms', { sms: { _id: 'x' } }, 'sms_reply'],
    ['sms_replied', 'sms', {}, 'sms_reply'],
    ['booking_created', 'booking', { booking: { _id: 'b' } }, 'meeting_booked'],
    ['meeting_booked', 'booking', {}, 'meeting_booked'],
  ])(
    '%s exits the enrollment (matched through the lead link)',
    async (type, entityType, payload, reason) => {
      const a = await parked();
      await emitEvent(type, entityType, '0123456789abcdef01234567', { ...payload, links: { leadId: a.l._id } });
      expect(await untilStatus(a.id, ['exited'])).toMatchObject({ exitReason: reason });
    },
    30_000,
  );

  it('lead status change: only the listed statuses exit (lead_status)', async () => {
    const a = await parked({ exitConditions: { onLeadStatusChange: { enabled: true, statuses: ['qualified'] } } });
    await suite.t.http.put(`/api/v1/leads/${a.l._id}`, { status: 'working' });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await enrollmentRow(a.id))!.status).toBe('active');
    await suite.t.http.put(`/api/v1/leads/${a.l._id}`, { status: 'Qualified' });
    expect(await untilStatus(a.id, ['exited'])).toMatchObject({ exitReason: 'lead_status' });
  }, 30_000);

  it('deal stage change exits a deal enrollment when the stage is listed (deal_stage)', async () => {
    const flow = (
      await suite.t.http.post('/api/v1/flows', {
        title: `Flow ${n++}`,
        stages: [{ title: 'New' }, { title: 'Demo' }, { title: 'Won', type: 'won' }],
      })
    ).body.data;
    const deal = (await suite.t.http.post('/api/v1/deals', { title: 'Big deal', value: 100, flowId: flow._id })).body
      .data;
    const demo = flow.stages.find((s: { title: string }) => s.title === 'Demo');
    const seqId = await createSequence(suite.t.http, {
      ...line([waitNode({ waitDays: 30 }), emailNode()]),
      exitConditions: { onDealStageChange: { enabled: true, stages: [demo._id ?? demo.id] } },
    });
    const id = await enroll(seqId, 'Deal', deal._id);
    await untilStep(id, 's1', ['waiting']);
    const moved = await suite.t.http.put(`/api/v1/deals/${deal._id}`, { stageId: demo._id ?? demo.id });
    expect(moved.status).toBe(200);
    expect(await untilStatus(id, ['exited'])).toMatchObject({ exitReason: 'deal_stage' });
  }, 30_000);

  it('the unsubscribe link opts the contact out and exits every running enrollment of it', async () => {
    const p = await person();
    const l = await lead({ personRef: p._id });
    const other = await parked();
    const seqA = await createSequence(
      suite.t.http,
      line([
        emailNode({ unsubscribeLinkEnabled: true, unsubscribeLinkPreset: 'Stop these e-mails' }),
        waitNode({ waitDays: 30 }),
      ]),
    );
    const seqB = await createSequence(suite.t.http, line([waitNode({ waitDays: 30 }), emailNode()]));
    const a = await enroll(seqA, 'Lead', l._id);
    const b = await enroll(seqB, 'People', p._id);
    await untilStep(a, 's2', ['waiting']);
    const raw = mailsTo(p.emails[0].email)[0]!
      .raw.replace(/=\r?\n/g, '')
      .replace(/=3D/g, '=');
    const link = /href="(http[^"]+\/api\/unsubscribe\/[^"]+)"/.exec(raw)![1]!;
    expect(raw).toContain('Stop these e-mails');
    const res = await suite.h.app.anonymous.get(new URL(link).pathname);
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('unsubscribed');
    expect(await untilStatus(a, ['exited'])).toMatchObject({ exitReason: 'unsubscribed' });
    expect(await untilStatus(b, ['exited'])).toMatchObject({ exitReason: 'unsubscribed' });
    expect((await enrollmentRow(other.id))!.status).toBe('active');
    const again = await suite.t.http.post(`/api/v1/sequences/${seqB}/enroll`, { entityType: 'Lead', entityId: l._id });
    expect(again.status).toBe(409);
    expect(again.body.details).toEqual({ code: 'unsubscribed' });
    expect((await suite.h.app.anonymous.post(`/api/unsubscribe/${'x'.repeat(30)}`)).status).toBe(404);
  }, 40_000);
});

describe('durability', () => {
  it('a worker stopped during a wait: the run continues on a new worker, each e-mail exactly once', async () => {
    const p = await person();
    const l = await lead({ personRef: p._id });
    const seqId = await createSequence(
      suite.t.http,
      line([emailNode({ subject: 'one' }), waitNode({ waitHours: 1 }), emailNode({ subject: 'two' })]),
    );
    const id = await enroll(seqId, 'Lead', l._id);
    await untilStep(id, 's2', ['waiting']);
    await suite.h.stopWorker();
    await new Promise((r) => setTimeout(r, 4000));
    expect((await enrollmentRow(id))!.status).toBe('active');
    await suite.h.startWorker();
    await untilStatus(id, ['completed'], 30_000);
    expect(mailsTo(p.emails[0].email).map((m) => m.headers.subject)).toEqual(['one', 'two']);
  }, 60_000);
});

describe('bookkeeping folded into the API and the step activity', () => {
  const smsThenWait = () =>
    createSequence(
      suite.t.http,
      line([
        { type: 'send_sms', data: { phoneField: 'mobile', message: 'Hi' } },
        waitNode({ waitDays: 30 }),
        emailNode(),
      ]),
    );

  it('the start step is written with the enrollment; the wait after a step is recorded by that step', async () => {
    const p = await person();
    const l = await lead({ personRef: p._id });
    const seqId = await smsThenWait();
    const id = await enroll(seqId, 'Lead', l._id);
    // Committed with the enrollment row, before its workflow ran.
    const start = (await stepsOf(id)).find((s) => s.nodeId === 'start');
    expect(start).toMatchObject({ nodeType: 'start', status: 'completed' });
    const wait = await untilStep(id, 's2', ['waiting']);
    const row = (await enrollmentRow(id))!;
    expect(row).toMatchObject({ status: 'active', currentNodeId: 's2' });
    expect(row.nextActionAt!.toISOString()).toBe(wait.output!.until);
    expect((await stepsOf(id)).map((s) => [s.nodeId, s.status])).toEqual([
      ['start', 'completed'],
      ['s1', 'completed'],
      ['s2', 'waiting'],
    ]);
    expect((await suite.t.http.post(`/api/v1/sequences/enrollments/${id}/unenroll`)).status).toBe(200);
    expect(await enrollmentRow(id)).toMatchObject({ status: 'exited', nextActionAt: null });
    // The wait it ended in is closed, not left waiting.
    expect((await stepsOf(id)).find((s) => s.nodeId === 's2')).toMatchObject({
      status: 'skipped',
      output: { until: wait.output!.until, skipped: true, reason: 'the enrollment ended during this wait' },
    });
  }, 30_000);

  it('failureBehavior retry: a step (a local activity) that fails twice is tried again and the run goes on', async () => {
    const p = await person();
    const l = await lead({ personRef: p._id });
    const seqId = await createSequence(suite.t.http, {
      ...line([{ type: 'send_sms', data: { phoneField: 'mobile', message: 'Hi' } }, waitNode({ waitDays: 30 })]),
      executionSettings: { failureBehavior: 'retry', retryMaxAttempts: 3, retryIntervalMinutes: 1 },
    });
    let calls = 0;
    gateway.respond((req, res) => {
      calls += 1;
      return calls <= 2 ? json(503, { error: 'busy' })(req, res) : json(200, { id: 'sms-r', status: 'sent' })(req, res);
    });
    try {
      const id = await enroll(seqId, 'Lead', l._id);
      await untilStep(id, 's2', ['waiting']);
      expect(calls).toBe(3);
      expect((await stepsOf(id)).find((s) => s.nodeId === 's1')).toMatchObject({ status: 'completed' });
      expect(await enrollmentRow(id)).toMatchObject({ status: 'active', currentNodeId: 's2' });
    } finally {
      gateway.respond(json(200, { id: 'sms-1', status: 'sent' }));
    }
  }, 30_000);

  it('an unenroll while the step before a wait is still sending leaves no waiting wait behind', async () => {
    const p = await person();
    const l = await lead({ personRef: p._id });
    const seqId = await smsThenWait();
    const seen = gateway.requests.length;
    gateway.respond((req, res) => {
      setTimeout(() => json(200, { id: 'sms-slow', status: 'sent' })(req, res), 1500);
    });
    try {
      const id = await enroll(seqId, 'Lead', l._id);
      await waitFor(async () => gateway.requests.length > seen, 20_000, 'the SMS to reach the gateway');
      expect((await suite.t.http.post(`/api/v1/sequences/enrollments/${id}/unenroll`)).body).toEqual({
        data: { unenrolled: true },
      });
      await waitFor(() => workflowCompleted(id), 20_000, 'workflow end');
      expect(await enrollmentRow(id)).toMatchObject({ status: 'exited', exitReason: 'manual', nextActionAt: null });
      const steps = await stepsOf(id);
      expect(steps.find((s) => s.nodeId === 's1')?.status).toBe('completed');
      expect(steps.find((s) => s.nodeId === 's2')?.status ?? 'absent').not.toBe('waiting');
    } finally {
      gateway.respond(json(200, { id: 'sms-1', status: 'sent' }));
    }
  }, 40_000);
});
