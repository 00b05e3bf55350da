import { CalendarEvent } from '../../calendar/calendar-event.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { createUser } from '../../workspaces/workspaces.service';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { eventsFor } from '../../../test/support/outbox';
import { action, chainGraph, createAutomation } from '../../../test/support/automation-engine';
import { startAiStub, type AiStub } from '../../../test/support/ai-stub';
import { activitiesOf, engineSuite } from '../../../test/support/engine-suite';
import { graphNode } from '../../../test/support/definitions';

let ai: AiStub;
let smtp: LocalSmtp;

beforeAll(async () => {
  // Echoes a fixed JSON answer or text depending on the request.
  ai = await startAiStub((_prompt, json) =>
    json ? JSON.stringify({ interested: true, summary: 'wants a demo' }) : 'Yes, a warm lead.',
  );
  smtp = await startSmtp();
});
const suite = engineSuite('Actions', {
  env: () => ({
    AI_BASE_URL: ai.baseUrl,
    AI_API_KEY: 'test-key',
    AI_MODEL: 'stub-1',
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    MAIL_FROM: 'CRM <crm@example.test>',
  }),
});
afterAll(async () => {
  await ai?.close();
  await smtp?.close();
});

type Node = { id?: string; type: string; data: Record<string, unknown> };
async function run(
  nodes: Node[],
  entity?: { entityType: string; entityId: string },
  context?: Record<string, unknown>,
) {
  const id = await createAutomation(suite.t.http, chainGraph({ triggerType: 'lead_created' }, nodes));
  const done = await suite.h.triggerRun(suite.t.http, id, {
    ...(entity ?? {}),
    ...(context ? { context } : {}),
  });
  const steps = await suite.h.stepsOf(done._id);
  return { done, steps, step: (nodeId: string) => steps.find((s) => s.nodeId === nodeId)! };
}
const lead = async (body: Record<string, unknown> = {}) =>
  (await suite.t.http.post('/api/v1/leads', { title: 'Lead', ...body })).body.data;

describe('CRM actions act through the domain services (their events fire)', () => {
  it('create_activity adds a timeline entry to the trigger record', async () => {
    const l = await lead({ title: 'Timeline' });
    const r = await run([action('create_activity', { description: 'Called {{lead.title}}', activityType: 'call' })], {
      entityType: 'lead',
      entityId: l._id,
    });
    expect(r.done.status).toBe('completed');
    const timeline = (await suite.t.http.get(`/api/v1/activities?leadId=${l._id}`)).body.data;
    expect(
      timeline.some(
        (a: { type: string; description?: string; summary?: string }) =>
          a.type === 'call' && (a.summary ?? a.description) === 'Called Timeline',
      ),
    ).toBe(true);
  });

  it('create_task creates a calendar event with the spec defaults (meeting, 30 min, owner) and honours conflictPolicy', async () => {
    const l = await lead({ title: 'Meet' });
    const task = { title: 'Meet {{lead.title}}', dueInDays: 2, time: '10:00' };
    const first = await run([action('create_task', task)], { entityType: 'lead', entityId: l._id });
    expect(first.done.status).toBe('completed');
    const em = forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId);
    const ev = await em.findOneOrFail(CalendarEvent, { _id: (first.step('n1').output as { eventId: string }).eventId });
    expect(ev).toMatchObject({ title: 'Meet Meet', type: 'meeting', leadId: l._id, ownerId: suite.t.userId });
    expect(ev.end.getTime() - ev.start.getTime()).toBe(30 * 60_000);
    expect(
      new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Copenhagen', hour: '2-digit', minute: '2-digit' }).format(
        ev.start,
      ),
    ).toBe('10:00');

    const skipped = await run([action('create_task', { ...task, conflictPolicy: 'skip' })], {
      entityType: 'lead',
      entityId: l._id,
    });
    expect(skipped.step('n1')).toMatchObject({
      status: 'skipped',
      output: { skipped: true, reason: 'conflict', conflictingEventId: ev._id },
    });
    const next = await run([action('create_task', task)], { entityType: 'lead', entityId: l._id });
    const moved = await em
      .fork()
      .findOneOrFail(CalendarEvent, { _id: (next.step('n1').output as { eventId: string }).eventId });
    expect(moved.start.getTime()).toBe(ev.end.getTime());
  });

  it('create_recall schedules a call-back event with the phone', async () => {
    const l = await lead({ title: 'Recall', phone: '+45 11 22 33 44' });
    const r = await run([action('create_recall', { title: 'Call back', message: 'Follow up', delayDays: 1 })], {
      entityType: 'lead',
      entityId: l._id,
    });
    expect(r.step('n1').output).toMatchObject({ phone: '+45 11 22 33 44' });
    const ev = await forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId).findOneOrFail(
      CalendarEvent,
      {
        _id: (r.step('n1').output as { eventId: string }).eventId,
      },
    );
    expect(ev).toMatchObject({ type: 'call', title: 'Call back', description: 'Follow up\nCall +45 11 22 33 44' });
  });

  it('update_record changes fields and custom fields through the lead service (lead_updated fires); bad values fail the step', async () => {
    const l = await lead({ title: 'Update me' });
    const r = await run(
      [
        action('update_record', {
          fieldUpdates: [
            { fieldKey: 'status', value: 'qualified' },
            { fieldKey: 'budget', value: '{{webhookData.budget}}', isCustomField: true },
          ],
        }),
      ],
      { entityType: 'lead', entityId: l._id },
      { webhookData: { budget: 5000 } },
    );
    expect(r.done.status).toBe('completed');
    const after = (await suite.t.http.get(`/api/v1/leads/${l._id}`)).body.data;
    expect(after).toMatchObject({ status: 'qualified', customFields: { budget: 5000 } });
    expect(
      (await eventsFor(suite.h.app.runtime.deps.orm, l._id)).filter((e) => e.type === 'lead_updated').at(-1)?.payload
        .causedBy,
    ).toMatchObject({ executionId: r.done._id });

    const bad = await run([action('update_record', { fieldUpdates: [{ fieldKey: 'value', value: 'lots' }] })], {
      entityType: 'lead',
      entityId: l._id,
    });
    expect(bad.done.status).toBe('failed');
    expect(bad.step('n1').error).toContain('config.fieldUpdates.value');
  });

  it('update_record on a company and a person', async () => {
    const company = (await suite.t.http.post('/api/v1/companies', { name: 'Co' })).body.data;
    const person = (await suite.t.http.post('/api/v1/people', { firstName: 'Per', companyId: company._id })).body.data;
    const r = await run(
      [
        action('update_record', { recordType: 'company', fieldUpdates: [{ fieldKey: 'city', value: 'Aarhus' }] }),
        action('update_record', {
          recordType: 'person',
          fieldUpdates: [{ fieldKey: 'title', value: 'CEO at {{company.name}}' }],
        }),
      ],
      { entityType: 'person', entityId: person._id },
    );
    expect(r.done.status).toBe('completed');
    expect((await suite.t.http.get(`/api/v1/companies/${company._id}`)).body.data.city).toBe('Aarhus');
    expect((await suite.t.http.get(`/api/v1/people/${person._id}`)).body.data.title).toBe('CEO at Co');
  });

  it('move_deal_stage moves the trigger deal (deal_stage_changed fires)', async () => {
    const flow = (
      await suite.t.http.post('/api/v1/flows', {
        title: 'Sales',
        stages: [{ title: 'New' }, { title: 'Offer' }, { title: 'Won', type: 'won' }],
      })
    ).body.data;
    const deal = (
      await suite.t.http.post('/api/v1/deals', { title: 'Big', flowId: flow._id, stageId: flow.stages[0].id })
    ).body.data;
    const r = await run([action('move_deal_stage', { stageId: flow.stages[1].id })], {
      entityType: 'deal',
      entityId: deal._id,
    });
    expect(r.done.status).toBe('completed');
    expect((await suite.t.http.get(`/api/v1/deals/${deal._id}`)).body.data.stageId).toBe(flow.stages[1].id);
    expect((await eventsFor(suite.h.app.runtime.deps.orm, deal._id)).map((e) => e.type)).toContain(
      'deal_stage_changed',
    );
  });

  it('create_record and the legacy create_lead / create_deal / create_contact create records', async () => {
    const r = await run(
      [
        action('create_record', {
          recordType: 'company',
          fieldValues: { name: 'Made by {{webhookData.who}}', city: 'Odense' },
        }),
        action('create_lead', { title: 'Legacy lead', email: 'legacy@example.test' }),
        action('create_deal', { title: 'Legacy deal', value: '{{webhookData.amount}}' }),
        action('create_contact', { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test' }),
      ],
      undefined,
      { webhookData: { who: 'bot', amount: 1200 } },
    );
    expect(r.done.status).toBe('completed');
    const ids = ['n1', 'n2', 'n3', 'n4'].map((n) => (r.step(n).output as { recordId: string }).recordId);
    expect((await suite.t.http.get(`/api/v1/companies/${ids[0]}`)).body.data).toMatchObject({
      name: 'Made by bot',
      city: 'Odense',
    });
    expect((await suite.t.http.get(`/api/v1/leads/${ids[1]}`)).body.data).toMatchObject({
      title: 'Legacy lead',
      email: 'legacy@example.test',
    });
    expect((await suite.t.http.get(`/api/v1/deals/${ids[2]}`)).body.data).toMatchObject({
      title: 'Legacy deal',
      value: 1200,
    });
    expect((await suite.t.http.get(`/api/v1/people/${ids[3]}`)).body.data).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
      emails: [{ email: 'ada@example.test' }],
    });
  });

  it('add_to_list and remove_from_list', async () => {
    const l = await lead({ title: 'Listed' });
    const list = (await suite.t.http.post('/api/v1/lists', { name: 'Hot', entityType: 'lead' })).body.data;
    const added = await run([action('add_to_list', { listId: list._id })], { entityType: 'lead', entityId: l._id });
    expect(added.step('n1').output).toMatchObject({ added: 1 });
    expect(
      (await suite.t.http.get(`/api/v1/lists/${list._id}/items`)).body.data.map(
        (i: { entityId: string }) => i.entityId,
      ),
    ).toEqual([l._id]);
    await run([action('remove_from_list', { listId: list._id })], { entityType: 'lead', entityId: l._id });
    expect((await suite.t.http.get(`/api/v1/lists/${list._id}/items`)).body.data).toEqual([]);
  });

  it('assign_user and set_access change the owner; an unknown user fails the step', async () => {
    const colleague = await createUser(forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId), {
      workspaceId: suite.t.workspaceId,
      email: `c${Date.now()}@example.test`,
      firstName: 'Colleague',
      role: 'member',
    });
    const l = await lead({ title: 'Owned' });
    const r = await run([action('assign_user', { userId: colleague.id })], { entityType: 'lead', entityId: l._id });
    expect(r.done.status).toBe('completed');
    expect((await suite.t.http.get(`/api/v1/leads/${l._id}`)).body.data.ownerId).toBe(colleague.id);
    const company = (await suite.t.http.post('/api/v1/companies', { name: 'Owned Co' })).body.data;
    const s = await run(
      [action('set_access', { accessState: { owner: '{{owner._id}}' } })],
      { entityType: 'company', entityId: company._id },
      { owner: { _id: colleague.id } },
    );
    expect(s.done.status).toBe('completed');
    expect((await suite.t.http.get(`/api/v1/companies/${company._id}`)).body.data.ownerId).toBe(colleague.id);
    expect((await eventsFor(suite.h.app.runtime.deps.orm, company._id)).at(-1)).toMatchObject({
      type: 'company_updated',
      payload: { changes: { ownerId: { to: colleague.id } } },
    });
    // A literal unknown id is refused when the automation is saved; one that only the run resolves fails the step.
    const bad = await run(
      [action('assign_user', { userId: '{{owner._id}}' })],
      { entityType: 'lead', entityId: l._id },
      { owner: { _id: '0123456789abcdef01234567' } },
    );
    expect(bad.done.status).toBe('failed');
    expect(bad.step('n1').error).toContain('ownerId');
  });
});

describe('send_email through the messaging module', () => {
  it('sends once to the lead, on its timeline; a replayed step or a lost step row sends no second e-mail', async () => {
    const l = await lead({ title: 'Mailed', email: 'buyer@example.test' });
    const before = smtp.received.length;
    const r = await run(
      [action('send_email', { subject: 'Hello {{lead.title}}', body: '<p>Dear {{lead.title}}</p>' })],
      { entityType: 'lead', entityId: l._id },
    );
    expect(r.done.status).toBe('completed');
    expect(r.step('n1').output).toMatchObject({ to: ['buyer@example.test'], replayed: false });
    expect(smtp.received.slice(before).map((m) => [m.to, m.headers.subject])).toEqual([
      [['buyer@example.test'], 'Hello Mailed'],
    ]);

    const acts = await activitiesOf(suite.h);
    const input = {
      workspaceId: suite.t.workspaceId,
      executionId: r.done._id,
      automationId: r.done.automationId,
      nodeId: 'n1',
      data: {
        actionType: 'send_email',
        config: { subject: 'Hello {{lead.title}}', body: '<p>Dear {{lead.title}}</p>' },
      },
      context: r.done.context,
      isTest: false,
      actorUserId: suite.t.userId,
      timezone: 'Europe/Copenhagen',
      chain: [r.done.automationId],
      failureBehavior: 'stop' as const,
    };
    expect((await acts.runAction(input)).output).toMatchObject({ replayed: false }); // the stored step answers
    // Even without the step row (a crash between send and step write), the messaging key dedupes.
    await suite.h.app.runtime.deps.orm.em
      .fork()
      .getConnection()
      .execute('delete from automation_step where execution_id = ? and node_id = ?', [r.done._id, 'n1']);
    expect((await acts.runAction(input)).output).toMatchObject({ replayed: true });
    expect(smtp.received.length - before).toBe(1);
  });
});

describe('lookup first / count and change detection', () => {
  const lookupNode = (data: Record<string, unknown>) => ({
    id: 'find',
    type: 'lookup',
    data: { entityType: 'Lead', ...data },
  });
  const graph = (data: Record<string, unknown>) => ({
    nodes: [
      graphNode('trigger', 'trigger', [0, 0], { triggerType: 'lead_created' }),
      { ...lookupNode(data), position: { x: 0, y: 200 } },
      graphNode('yes', 'action', [0, 400], {
        actionType: 'create_note',
        config: { noteContent: 'found {{lookup.find.title}} / {{lookup.newest.title}} of {{lookup.find.count}}' },
      }),
    ],
    edges: [
      { id: 'e1', source: 'trigger', target: 'find', sourceHandle: null },
      { id: 'e2', source: 'find', target: 'yes', sourceHandle: 'found' },
    ],
  });

  it('first: the newest match by sortField, under lookup.<nodeId> and lookup.<alias>; filters resolve placeholders', async () => {
    const tag = `lk-${Date.now()}`;
    const a = await lead({ title: 'Older', source: tag, value: 10 });
    await lead({ title: 'Newer', source: tag, value: 20 });
    await lead({ title: 'Other', source: 'elsewhere', value: 30 });
    const id = await createAutomation(
      suite.t.http,
      graph({
        label: 'Newest',
        filters: [
          { field: 'source', operator: 'equals', value: '{{webhookData.tag}}' },
          { field: 'value', operator: 'greater_than', value: 5 },
        ],
        sortField: 'value',
        sortOrder: -1,
      }),
    );
    const done = await suite.h.triggerRun(suite.t.http, id, {
      entityType: 'lead',
      entityId: a._id,
      context: { webhookData: { tag } },
    });
    const steps = await suite.h.stepsOf(done._id);
    expect(steps.find((s) => s.nodeId === 'find')).toMatchObject({
      handle: 'found',
      output: { title: 'Newer', found: true, count: 2 },
    });
    expect(steps.find((s) => s.nodeId === 'yes')!.input).toEqual({ noteContent: 'found Newer / Newer of 2' });
  });

  it('count: found when the count is above zero; regex filters run in memory', async () => {
    const tag = `cnt-${Date.now()}`;
    const a = await lead({ title: 'A1', source: tag });
    await lead({ title: 'B1', source: tag });
    const id = await createAutomation(
      suite.t.http,
      graph({
        mode: 'count',
        filters: [
          { field: 'source', operator: 'equals', value: tag },
          { field: 'title', operator: 'matches_regex', value: '^A\\d$' },
        ],
      }),
    );
    const done = await suite.h.triggerRun(suite.t.http, id, { entityType: 'lead', entityId: a._id });
    expect((await suite.h.stepsOf(done._id)).find((s) => s.nodeId === 'find')).toMatchObject({
      handle: 'found',
      output: { found: true, count: 1 },
    });
  });

  it('changeDetection: unchanged watched fields take the empty handle; a change takes found with previous values', async () => {
    const tag = `cd-${Date.now()}`;
    const l = await lead({ title: 'Watched', source: tag, status: 'new' });
    const id = await createAutomation(
      suite.t.http,
      graph({
        filters: [{ field: 'source', operator: 'equals', value: tag }],
        changeDetection: true,
        watchedFields: ['status'],
      }),
    );
    const once = async () => {
      const done = await suite.h.triggerRun(suite.t.http, id, { entityType: 'lead', entityId: l._id });
      return (await suite.h.stepsOf(done._id)).find((s) => s.nodeId === 'find')!;
    };
    expect(await once()).toMatchObject({ handle: 'found', output: { changed: true, previous: null } });
    expect(await once()).toMatchObject({ handle: 'empty', output: { found: false } });
    await suite.t.http.put(`/api/v1/leads/${l._id}`, { status: 'won' });
    expect(await once()).toMatchObject({
      handle: 'found',
      output: { changed: true, previous: { status: 'new' }, status: 'won' },
    });
  });

  it('an entity type not stored here fails the lookup with a clear error (or takes the error handle)', async () => {
    const r = await run([lookupNode({ entityType: 'Offer' }) as Node]);
    expect(r.done.status).toBe('failed');
    expect(r.step('find').error).toContain('Offer records are not available yet');
  });
});

describe('ai node', () => {
  it('json_schema output lands in ai_json.* and aiOutput; the prompt resolves placeholders', async () => {
    const l = await lead({ title: 'Curious Corp' });
    const r = await run(
      [
        {
          id: 'think',
          type: 'ai',
          data: {
            prompt: 'Is {{lead.title}} interested?',
            outputMode: 'json_schema',
            schema: { type: 'object', properties: { interested: { type: 'boolean' }, summary: { type: 'string' } } },
          },
        },
        action('create_note', { noteContent: '{{ai_json.summary}} ({{ai_json.interested}})' }),
      ],
      { entityType: 'lead', entityId: l._id },
    );
    expect(r.done.status).toBe('completed');
    expect(ai.prompts).toContain('Is Curious Corp interested?');
    expect(r.step('think')).toMatchObject({
      status: 'completed',
      handle: 'true',
      output: { json: { interested: true, summary: 'wants a demo' }, model: 'stub-1' },
    });
    expect(r.step('n2').input).toEqual({ noteContent: 'wants a demo (true)' });
  });

  it('text output lands in ai_text; test mode does not call the model', async () => {
    const l = await lead({ title: 'Texty' });
    const r = await run(
      [
        { id: 'think', type: 'ai', data: { prompt: 'Rate {{lead.title}}' } },
        action('create_note', { noteContent: 'AI says: {{ai_text}}' }),
      ],
      { entityType: 'lead', entityId: l._id },
    );
    expect(r.step('n2').input).toEqual({ noteContent: 'AI says: Yes, a warm lead.' });
    const before = ai.prompts.length;
    const id = await createAutomation(
      suite.t.http,
      chainGraph({ triggerType: 'lead_created' }, [
        { id: 'think', type: 'ai', data: { prompt: 'Rate {{lead.title}}' } },
      ]),
      { active: false },
    );
    const test = await suite.t.http.post(`/api/v1/automations/${id}/test`, { entityType: 'lead', entityId: l._id });
    const done = await suite.h.waitForExecution(test.body.data.executionId);
    expect((await suite.h.stepsOf(done._id)).find((s) => s.nodeId === 'think')).toMatchObject({
      status: 'skipped',
      output: { wouldDo: 'test: would ask the AI model (text): Rate Texty' },
    });
    expect(ai.prompts.length).toBe(before);
  });
});
