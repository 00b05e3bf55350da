/**
 * Sequences and the rest of the engine: AI nodes through the AI port (a local OpenAI-compatible
 * stub), create_recall and set_access, auto-enrollment triggers, the automation action
 * add_to_sequence, sequence events as automation triggers, and a send whose attempt dies after
 * the hand-over to SMTP (exactly one e-mail).
 */
import { CalendarEvent } from '../../calendar/calendar-event.entity';
import { Lead } from '../../leads/lead.entity';
import { createMessagingDeps, type MessagingDeps } from '../../email/messaging-deps';
import type { EmailMessage } from '../../../platform/ports/messaging.port';
import { Note } from '../../notes/note.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { Sequence, SequenceEnrollment, SequenceStep } from '../sequence.entity';
import { action, chainGraph, createAutomation, waitFor } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';
import { startAiStub, type AiStub } from '../../../test/support/ai-stub';
import { createSequence, emailNode, line, waitNode } from '../../../test/support/sequences';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { graphNode } from '../../../test/support/definitions';

let smtp: LocalSmtp;
let ai: AiStub;
/** The next answers of the AI stub (JSON for json_schema requests). */
let aiAnswer: (prompt: string, json: boolean) => string = () => 'ok';
/** Set by a test: the next e-mail is handed to SMTP, then its attempt never returns. */
let hangAfterSend = false;
let releaseHung: () => void = () => undefined;

beforeAll(async () => {
  ai = await startAiStub((prompt, json) => aiAnswer(prompt, json));
  smtp = await startSmtp();
});
// Before the harness closes: a hung send would hold its worker's shutdown.
afterAll(() => releaseHung());
const suite = engineSuite('Sequence automation', {
  env: () => ({
    AI_BASE_URL: ai.baseUrl,
    AI_API_KEY: 'k',
    AI_MODEL: 'stub-1',
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    MAIL_FROM: 'Sales <sales@example.test>',
    SEQUENCE_WAIT_SCALE: '0.001',
    SEQUENCE_STEP_TIMEOUT_MS: '3000',
    STALE_CLAIM_MS: '2000',
  }),
  prepare: (harness) => {
    const real = createMessagingDeps(harness.app.config);
    const transport: MessagingDeps['transport'] = {
      defaultFrom: real.transport.defaultFrom,
      async send(msg: EmailMessage) {
        const sent = await real.transport.send(msg);
        if (!hangAfterSend) return sent;
        hangAfterSend = false;
        // Handed over, never reported: to Temporal this attempt is a worker that died mid-send.
        await new Promise<void>((r) => (releaseHung = r));
        return sent;
      },
    };
    harness.messaging = { ...real, transport };
  },
});
beforeAll(() => suite.h.dispatcher([suite.t.workspaceId]).start());
afterAll(async () => {
  await smtp?.close();
  await ai?.close();
});

const em = () => forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId);
const enrollmentsOf = (sequenceId: string) =>
  em().find(SequenceEnrollment, { sequenceId }, { orderBy: { enrolledAt: 'asc' } });
const stepsOf = (id: string) =>
  em().find(SequenceStep, { enrollmentId: id }, { orderBy: { startedAt: 'asc', _id: 'asc' } });
const untilStatus = (id: string, statuses: string[], ms = 20_000) =>
  waitFor(
    async () => {
      const e = await em().findOne(SequenceEnrollment, { _id: id });
      return e && statuses.includes(e.status) ? e : null;
    },
    ms,
    `enrollment ${id} ${statuses.join('/')}`,
  );
let n = 0;
async function leadWithPerson(body: Record<string, unknown> = {}) {
  const p = (
    await suite.t.http.post('/api/v1/people', {
      firstName: 'Grace',
      emails: [{ email: `grace${++n}-${Date.now().toString(36)}@example.test` }],
      phones: [{ phone: '+45 11223344' }],
    })
  ).body.data;
  const l = (await suite.t.http.post('/api/v1/leads', { title: 'Compilers Inc', personRef: p._id, ...body })).body.data;
  return { p, l };
}
const enroll = async (sequenceId: string, entityType: string, entityId: string) => {
  const res = await suite.t.http.post(`/api/v1/sequences/${sequenceId}/enroll`, { entityType, entityId });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data.enrollmentId as string;
};

describe('AI nodes through the AI port', () => {
  it('ai_analyzer output feeds aiOutput placeholders; aiBlocks are generated per recipient; ai_condition branches on the confidence threshold', async () => {
    aiAnswer = (prompt, json) => {
      if (prompt.includes('Classify')) return JSON.stringify({ tier: 'gold' });
      if (json) return JSON.stringify({ decision: true, confidence: prompt.includes('sure') ? 0.9 : 0.5, reason: 'r' });
      return `Intro for ${prompt.includes('Compilers Inc') ? 'Compilers' : '?'}`;
    };
    const { p, l } = await leadWithPerson();
    const seqId = await createSequence(suite.t.http, {
      nodes: [
        graphNode('start', 'start', [0, 0], {}),
        graphNode('classify', 'ai_analyzer', [1, 0], {
          prompt: 'Classify {{lead.title}}',
          schema: { type: 'object', properties: { tier: { type: 'string' } } },
        }),
        graphNode('ask', 'ai_condition', [2, 0], {
          prompt: 'Are you sure {{lead.title}} fits?',
          confidenceThreshold: 0.8,
        }),
        graphNode('mail', 'send_email', [3, 0], {
          subject: 'Tier {{aiOutput.tier}}',
          body: '<p>{{ai:intro}}</p>',
          aiBlocks: [{ id: 'intro', prompt: 'One line for {{lead.title}}' }],
        }),
      ],
      edges: [
        { id: 'e1', source: 'start', target: 'classify' },
        { id: 'e2', source: 'classify', target: 'ask' },
        { id: 'e3', source: 'ask', target: 'mail', sourceHandle: 'true' },
      ],
    });
    const id = await enroll(seqId, 'Lead', l._id);
    await untilStatus(id, ['completed']);
    const mail = smtp.received.find((m) => m.to.includes(p.emails[0].email))!;
    expect(mail.headers.subject).toBe('Tier gold');
    expect(mail.raw).toContain('Intro for Compilers');
    expect((await stepsOf(id)).find((s) => s.nodeId === 'ask')).toMatchObject({
      handle: 'true',
      output: { decision: true, confidence: 0.9, threshold: 0.8 },
    });
  }, 30_000);

  it('an ai_condition "no" below the threshold with no false edge exits the enrollment (ai_decision)', async () => {
    aiAnswer = () => JSON.stringify({ decision: true, confidence: 0.5 });
    const { l } = await leadWithPerson();
    const seqId = await createSequence(suite.t.http, {
      nodes: [
        graphNode('start', 'start', [0, 0], {}),
        graphNode('ask', 'ai_condition', [1, 0], { prompt: 'Fits?' }),
        graphNode('mail', 'send_email', [2, 0], { subject: 's', body: 'b' }),
      ],
      edges: [
        { id: 'e1', source: 'start', target: 'ask' },
        { id: 'e2', source: 'ask', target: 'mail', sourceHandle: 'true' },
      ],
    });
    const id = await enroll(seqId, 'Lead', l._id);
    expect(await untilStatus(id, ['exited'])).toMatchObject({ exitReason: 'ai_decision' });
  }, 30_000);
});

describe('CRM action nodes', () => {
  it('create_recall schedules a call-back event; set_access changes the owner', async () => {
    const { l } = await leadWithPerson();
    const me = (await suite.t.http.get('/api/v1/whoami')).body.data.user._id;
    const seqId = await createSequence(
      suite.t.http,
      line([
        { type: 'create_recall', data: { title: 'Ring {{lead.title}}', delayDays: 2, message: 'Follow up' } },
        { type: 'set_access', data: { accessState: { owner: me } } },
      ]),
    );
    const id = await enroll(seqId, 'Lead', l._id);
    await untilStatus(id, ['completed']);
    const recall = (await stepsOf(id)).find((s) => s.nodeId === 's1')!;
    const event = await em().findOneOrFail(CalendarEvent, { _id: (recall.output as { eventId: string }).eventId });
    expect(event).toMatchObject({ title: 'Ring Compilers Inc', type: 'call', leadId: l._id });
    expect(event.start.getTime() - Date.now()).toBeGreaterThan(2 * 86_400_000 - 120_000);
    expect((await em().findOneOrFail(Lead, { _id: l._id })).ownerId).toBe(me);
  }, 30_000);

  it('a permanent step error exits the enrollment with reason error (failureBehavior stop) or goes on (continue)', async () => {
    const { l } = await leadWithPerson();
    const steps = (owner: string) =>
      line([
        { type: 'set_access', data: { accessState: { owner } } },
        { type: 'create_task', data: { taskTitle: 'after' } },
      ]);
    const broken = steps(suite.t.userId);
    // The owner was a user when the sequence was saved and activated, and is none when the step runs.
    const ownerGone = async (id: string) => {
      const fork = em();
      const row = await fork.findOneOrFail(Sequence, { _id: id });
      row.nodes = steps('0123456789abcdef01234567').nodes as never;
      await fork.flush();
      return id;
    };
    const stop = await ownerGone(await createSequence(suite.t.http, broken));
    const a = await enroll(stop, 'Lead', l._id);
    const exited = await untilStatus(a, ['exited']);
    expect(exited.exitReason).toBe('error');
    expect(exited.error).toContain('s1: ');
    expect((await stepsOf(a)).map((s) => [s.nodeId, s.status])).toEqual([
      ['start', 'completed'],
      ['s1', 'failed'],
    ]);
    const go = await ownerGone(
      await createSequence(suite.t.http, { ...broken, executionSettings: { failureBehavior: 'continue' } }),
    );
    const b = await enroll(go, 'Lead', l._id);
    await untilStatus(b, ['completed']);
    expect((await stepsOf(b)).map((s) => [s.nodeId, s.status])).toEqual([
      ['start', 'completed'],
      ['s1', 'failed'],
      ['s2', 'completed'],
    ]);
  }, 30_000);
});

describe('auto-enrollment and automations', () => {
  it('entity_created with filters and field_change enroll the record; sequence_event chains sequences', async () => {
    const first = await createSequence(suite.t.http, {
      ...line([{ type: 'create_task', data: { taskTitle: 'first' } }]),
      triggers: [
        { type: 'entity_created', entityType: 'Lead', filters: { source: 'webinar' } },
        { type: 'field_change', entityType: 'Lead', field: 'status', operator: 'equals', value: 'qualified' },
      ],
    });
    const second = await createSequence(suite.t.http, {
      ...line([{ type: 'create_task', data: { taskTitle: 'second' } }]),
      triggers: [{ type: 'sequence_event', sourceSequenceId: first, event: 'sequence_completed' }],
    });
    const hit = (await suite.t.http.post('/api/v1/leads', { title: 'From webinar', source: 'Webinar' })).body.data;
    const miss = (await suite.t.http.post('/api/v1/leads', { title: 'From ads', source: 'ads' })).body.data;
    await waitFor(
      async () => (await enrollmentsOf(second)).find((e) => e.entityId === hit._id),
      20_000,
      'the chained enrollment',
    );
    const firstRows = await enrollmentsOf(first);
    expect(firstRows.map((e) => [e.entityId, e.source])).toEqual([[hit._id, 'auto:lead_created']]);
    expect((await enrollmentsOf(second))[0]).toMatchObject({
      entityType: 'Lead',
      entityId: hit._id,
      source: 'auto:sequence_completed',
    });
    await suite.t.http.put(`/api/v1/leads/${miss._id}`, { status: 'qualified' });
    await waitFor(
      async () => (await enrollmentsOf(first)).find((e) => e.entityId === miss._id),
      20_000,
      'the field_change enrollment',
    );
    await suite.t.http.put(`/api/v1/leads/${miss._id}`, { title: 'Renamed' });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await enrollmentsOf(first)).filter((e) => e.entityId === miss._id)).toHaveLength(1);
  }, 40_000);

  it('add_to_sequence enrolls the trigger record; without forceRestart a running one is skipped (already_enrolled), with it restarted', async () => {
    const seqId = await createSequence(suite.t.http, {
      ...line([waitNode({ waitDays: 30 }), emailNode()]),
      duplicateHandling: 'allow_multiple',
    });
    const plain = await createAutomation(
      suite.t.http,
      chainGraph({ triggerType: 'lead_created' }, [action('add_to_sequence', { sequenceId: seqId })]),
    );
    const lead = (await suite.t.http.post('/api/v1/leads', { title: 'Automated' })).body.data;
    await waitFor(async () => (await enrollmentsOf(seqId)).length === 1, 20_000, 'the automation enrollment');
    expect((await enrollmentsOf(seqId))[0]).toMatchObject({
      entityId: lead._id,
      source: 'automation',
      status: 'active',
    });
    const again = await suite.t.http.post(`/api/v1/automations/${plain}/trigger`, {
      entityType: 'lead',
      entityId: lead._id,
    });
    const execId = again.body.data.executionId;
    await waitFor(
      async () => (await suite.t.http.get(`/api/v1/automations/executions/${execId}`)).body.data.status === 'completed',
      20_000,
      'second run',
    );
    const step = (await suite.t.http.get(`/api/v1/automations/executions/${execId}`)).body.data.steps.find(
      (s: { nodeId: string }) => s.nodeId === 'n1',
    );
    expect(step).toMatchObject({ status: 'skipped', output: { reason: 'already_enrolled' } });
    expect(await enrollmentsOf(seqId)).toHaveLength(1);
    const forced = await createAutomation(
      suite.t.http,
      chainGraph({ triggerType: 'lead_updated' }, [
        action('add_to_sequence', { sequenceId: seqId, forceRestart: true }),
      ]),
    );
    expect(forced).toBeTruthy();
    await suite.t.http.put(`/api/v1/leads/${lead._id}`, { title: 'Automated again' });
    await waitFor(async () => (await enrollmentsOf(seqId)).length === 2, 20_000, 'the restart');
    const rows = await enrollmentsOf(seqId);
    expect(rows.map((e) => [e.status, e.exitReason])).toEqual([
      ['exited', 'restarted'],
      ['active', null],
    ]);
  }, 40_000);

  it('sequence_completed is an automation trigger with the enrolled record in context', async () => {
    const seqId = await createSequence(suite.t.http, line([{ type: 'create_task', data: { taskTitle: 'quick' } }]));
    await createAutomation(
      suite.t.http,
      chainGraph({ triggerType: 'sequence_completed' }, [
        action('create_note', { noteContent: 'Finished {{enrollment.sequenceId}} for {{lead.title}}' }),
      ]),
    );
    const { l } = await leadWithPerson({ title: 'Noted lead' });
    await enroll(seqId, 'Lead', l._id);
    const note = await waitFor(async () => em().findOne(Note, { leadRef: l._id }), 20_000, 'the note');
    expect(note.content).toBe(`Finished ${seqId} for Noted lead`);
  }, 30_000);
});

describe('a send whose attempt dies after the hand-over', () => {
  it('is never sent twice: the retry finds the claim, the step completes with an unknown outcome, the run goes on', async () => {
    const { p, l } = await leadWithPerson();
    const seqId = await createSequence(
      suite.t.http,
      line([emailNode({ subject: 'Only once' }), { type: 'create_task', data: { taskTitle: 'after the send' } }]),
    );
    hangAfterSend = true;
    const id = await enroll(seqId, 'Lead', l._id);
    await untilStatus(id, ['completed'], 40_000);
    expect(smtp.received.filter((m) => m.to.includes(p.emails[0].email)).map((m) => m.headers.subject)).toEqual([
      'Only once',
    ]);
    const steps = await stepsOf(id);
    expect(steps.find((s) => s.nodeId === 's1')).toMatchObject({
      status: 'completed',
      output: { messages: [{ outcome: 'unknown' }] },
    });
    expect(steps.find((s) => s.nodeId === 's2')!.status).toBe('completed');
    releaseHung();
  }, 60_000);
});
