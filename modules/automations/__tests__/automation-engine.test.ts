import { SCOPES } from '../../../platform/context';
import { createLead } from '../../leads/leads.service';
import { Note } from '../../notes/note.entity';
import { startExecution } from '../engine/start';
import { executionWorkflowId } from '../automation-ids.pure';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { eventsFor, redeliverEvents } from '../../../test/support/outbox';
import {
  action,
  chainGraph,
  createAutomation,
  createNoteAutomation,
  waitFor,
} from '../../../test/support/automation-engine';
import { activitiesOf, engineSuite } from '../../../test/support/engine-suite';
import { expectError } from '../../../test/support/expect';
import { graphNode } from '../../../test/support/definitions';

const suite = engineSuite('Engine');

const notesOf = (workspaceId: string, leadId: string) =>
  forkForWorkspace(suite.h.app.runtime.deps.orm.em, workspaceId).find(Note, { leadRef: leadId });

describe('starts from CRM writes (outbox → automations subscriber)', () => {
  it('a lead_created automation writes a note on the new lead, with placeholders resolved, once', async () => {
    const tenant = await suite.h.app.tenant('From writes');
    const automationId = await createAutomation(
      tenant.http,
      chainGraph({ triggerType: 'lead_created' }, [
        action('create_note', { noteContent: 'Welcome {{lead.title}} ({{lead.email|default:no e-mail}})' }),
      ]),
    );
    const lead = (await tenant.http.post('/api/v1/leads', { title: 'Acme deal', email: 'buyer@acme.test' })).body.data;
    const d = suite.h.dispatcher([tenant.workspaceId]);
    await d.drainOnce();

    const [execution] = await waitFor(async () => {
      const list = await suite.h.executionsOf(automationId);
      return list.length ? list : null;
    });
    expect(execution).toMatchObject({
      entityType: 'lead',
      entityId: lead._id,
      triggerType: 'lead_created',
      workflowId: executionWorkflowId(tenant.workspaceId, execution!._id),
    });
    const done = await suite.h.waitForExecution(execution!._id);
    expect(done.status).toBe('completed');
    const notes = await notesOf(tenant.workspaceId, lead._id);
    expect(notes.map((n) => n.content)).toEqual(['Welcome Acme deal (buyer@acme.test)']);

    const steps = await suite.h.stepsOf(execution!._id);
    expect(steps.map((s) => [s.nodeId, s.nodeType, s.status])).toEqual([
      ['trigger', 'trigger', 'completed'],
      ['n1', 'action', 'completed'],
    ]);
    expect(steps[1]).toMatchObject({
      actionType: 'create_note',
      attempt: 1,
      input: { noteContent: 'Welcome Acme deal (buyer@acme.test)' },
    });

    // Search attributes (ids only) and the memo let operators find the run in the Temporal UI.
    const desc = await suite.h.client.workflow.getHandle(execution!.workflowId).describe();
    expect(desc.searchAttributes).toMatchObject({
      CrmWorkspaceId: [tenant.workspaceId],
      CrmAutomationId: [automationId],
      CrmTriggerType: ['lead_created'],
      CrmEntityType: ['lead'],
      CrmEntityId: [lead._id],
    });
    expect(await desc.memo).toMatchObject({ automationName: expect.any(String), workspaceId: tenant.workspaceId });
    // Its workspace is its Temporal fairness key (docs/automations.md "Fair sharing between workspaces").
    expect(desc.raw.workflowExecutionInfo?.priority?.fairnessKey).toBe(tenant.workspaceId);

    // A re-delivered event (same event id) starts nothing new.
    await redeliverEvents(suite.h.app.runtime.deps.orm, tenant.workspaceId);
    await d.drainOnce();
    expect(await suite.h.executionsOf(automationId)).toHaveLength(1);
    expect(await notesOf(tenant.workspaceId, lead._id)).toHaveLength(1);
  });

  it('one outbox batch of 12 lead events starts every matching automation once per event, caps applied within the batch', async () => {
    const tenant = await suite.h.app.tenant('Batch starts');
    const open = await createNoteAutomation(tenant.http, 'Hi {{lead.title}}');
    const capped = await createAutomation(tenant.http, {
      ...chainGraph({ triggerType: 'record_created', config: { entityTypes: ['lead'] } }, [
        action('create_note', { noteContent: 'Capped {{lead.title}}' }),
      ]),
      rateLimits: { maxRunsPerHour: 5 },
    });
    const em = forkForWorkspace(suite.h.app.runtime.deps.orm.em, tenant.workspaceId);
    // One transaction: all 12 events become claimable together and land in one batch.
    const leads = await em.transactional(async (tem) => {
      const out: { _id: string }[] = [];
      for (let i = 0; i < 12; i++)
        out.push(
          (await createLead(
            {
              em: tem,
              actor: { workspaceId: tenant.workspaceId, userId: tenant.userId, role: 'owner', scopes: [...SCOPES] },
            },
            { title: `Batch ${i}` },
            { preview: false },
          )) as { _id: string },
        );
      return out;
    });
    const d = suite.h.dispatcher([tenant.workspaceId]);
    const first = await d.drainOnce();
    expect(first.claimed).toBeGreaterThanOrEqual(12);

    const runsOfOpen = await suite.h.executionsOf(open);
    expect(runsOfOpen.map((e) => e.entityId).sort()).toEqual(leads.map((l) => l._id).sort());
    expect(await suite.h.executionsOf(capped)).toHaveLength(5);
    const a = (await tenant.http.get(`/api/v1/automations/${capped}`)).body.data;
    expect(a.stats).toMatchObject({
      totalRuns: 5,
      skippedRuns: 7,
      lastSkipReason: 'maxRunsPerHour reached (5 runs in the last hour)',
    });
    for (const e of runsOfOpen) expect((await suite.h.waitForExecution(e._id)).status).toBe('completed');

    // Redelivering the whole batch starts nothing new (dedupe on the event id per automation).
    await redeliverEvents(suite.h.app.runtime.deps.orm, tenant.workspaceId, 'lead_created');
    await d.drainOnce();
    expect(await suite.h.executionsOf(open)).toHaveLength(12);
    expect(await suite.h.executionsOf(capped)).toHaveLength(5);
  });

  it('an automation does not trigger itself through the events its own actions write', async () => {
    const tenant = await suite.h.app.tenant('Loop guard');
    // lead_updated → update the same lead: without the guard this would loop forever.
    const automationId = await createAutomation(
      tenant.http,
      chainGraph({ triggerType: 'lead_updated' }, [
        action('update_record', {
          recordType: 'lead',
          fieldUpdates: [{ fieldKey: 'source', value: 'automation {{lead.status}}' }],
        }),
      ]),
    );
    const lead = (await tenant.http.post('/api/v1/leads', { title: 'Loop' })).body.data;
    await tenant.http.put(`/api/v1/leads/${lead._id}`, { status: 'qualified' });
    const d = suite.h.dispatcher([tenant.workspaceId]);
    await d.drainOnce();
    const [e] = await waitFor(async () =>
      (await suite.h.executionsOf(automationId)).length ? suite.h.executionsOf(automationId) : null,
    );
    await suite.h.waitForExecution(e!._id);
    expect((await tenant.http.get(`/api/v1/leads/${lead._id}`)).body.data.source).toBe('automation qualified');
    // The lead_updated written by the action names its cause (the loop guard reads it).
    const written = (await eventsFor(suite.h.app.runtime.deps.orm, lead._id)).filter(
      (ev) => ev.type === 'lead_updated' && ev.payload.causedBy,
    );
    expect(written).toHaveLength(1);
    expect(written[0]!.payload.causedBy).toEqual({ automationId, executionId: e!._id, chain: [automationId] });
    await d.drainOnce();
    await new Promise((r) => setTimeout(r, 300));
    await d.drainOnce();
    expect(await suite.h.executionsOf(automationId)).toHaveLength(1);
  });
});

describe('trigger matching from real CRM writes', () => {
  it('record_created with entityTypes, tag_added with a tag, deal_stage_changed with a stageId each start only their matches', async () => {
    const tenant = await suite.h.app.tenant('Matching');
    const http = tenant.http;
    const companyCreated = await createAutomation(
      http,
      chainGraph({ triggerType: 'record_created', config: { entityTypes: ['company'] } }, [
        action('create_note', { noteContent: 'new company {{company.name}}' }),
      ]),
    );
    const vipTagged = await createAutomation(
      http,
      chainGraph({ triggerType: 'tag_added', config: { entityType: 'Company', tagId: 'vip' } }, [
        action('create_note', { noteContent: 'vip {{company.name}}' }),
      ]),
    );
    const flow = (
      await http.post('/api/v1/flows', {
        title: 'Pipeline',
        stages: [{ title: 'New' }, { title: 'Offer' }, { title: 'Won', type: 'won' }],
      })
    ).body.data;
    const toOffer = await createAutomation(
      http,
      chainGraph({ triggerType: 'deal_stage_changed', config: { stageId: flow.stages[1].id } }, [
        action('create_note', { noteContent: '{{deal.title}} reached {{deal.stage}}' }),
      ]),
    );

    const company = (await http.post('/api/v1/companies', { name: 'Tagged Co', tags: ['vip'] })).body.data;
    await http.post('/api/v1/companies', { name: 'Plain Co', tags: ['other'] });
    await http.post('/api/v1/leads', { title: 'Not a company' });
    const deal = (await http.post('/api/v1/deals', { title: 'Deal X', flowId: flow._id, stageId: flow.stages[0].id }))
      .body.data;
    await http.put(`/api/v1/deals/${deal._id}`, { stageId: flow.stages[2].id }); // another stage: no match
    await http.put(`/api/v1/deals/${deal._id}`, { stageId: flow.stages[1].id });
    await suite.h.dispatcher([tenant.workspaceId]).drainOnce();

    const finished = async (automationId: string) => {
      const list = await suite.h.executionsOf(automationId);
      return Promise.all(list.map((e) => suite.h.waitForExecution(e._id)));
    };
    expect((await finished(companyCreated)).map((e) => e.status)).toEqual(['completed', 'completed']);
    const vip = await finished(vipTagged);
    expect(vip.map((e) => [e.entityType, e.entityId, e.status])).toEqual([['company', company._id, 'completed']]);
    const moved = await finished(toOffer);
    expect(moved.map((e) => [e.entityId, e.status])).toEqual([[deal._id, 'completed']]);
    expect((await suite.h.stepsOf(moved[0]!._id)).find((s) => s.nodeId === 'n1')!.input).toEqual({
      noteContent: 'Deal X reached Offer',
    });
  });
});

describe('conditions', () => {
  const graph = {
    nodes: [
      graphNode('trigger', 'trigger', [500, 0], { triggerType: 'lead_created' }),
      graphNode('big', 'condition', [500, 200], {
        conditions: [{ field: 'lead.value', operator: 'greater_than', value: 1000 }],
        logic: 'and',
      }),
      graphNode('yes', 'action', [300, 400], { actionType: 'create_note', config: { noteContent: 'big' } }),
      graphNode('no', 'action', [700, 400], { actionType: 'create_note', config: { noteContent: 'small' } }),
    ],
    edges: [
      { id: 'e1', source: 'trigger', target: 'big', sourceHandle: null },
      { id: 'e2', source: 'big', target: 'yes', sourceHandle: 'true' },
      { id: 'e3', source: 'big', target: 'no', sourceHandle: 'false' },
    ],
  };

  it.each([
    [5000, 'big', 'true'],
    [10, 'small', 'false'],
  ])('lead value %s takes the %s branch', async (value, note, handle) => {
    const automationId = await createAutomation(suite.t.http, graph);
    const lead = (await suite.t.http.post('/api/v1/leads', { title: `Value ${value}`, value })).body.data;
    const done = await suite.h.triggerRun(suite.t.http, automationId, { entityType: 'lead', entityId: lead._id });
    expect(done.status).toBe('completed');
    expect((await notesOf(suite.t.workspaceId, lead._id)).map((n) => n.content)).toEqual([note]);
    const steps = await suite.h.stepsOf(done._id);
    expect(steps.find((s) => s.nodeId === 'big')).toMatchObject({ status: 'completed', handle, nodeType: 'condition' });
    expect(steps.map((s) => s.nodeId)).not.toContain(note === 'big' ? 'no' : 'yes');
  });
});

describe('POST /automations/:id/trigger and /test', () => {
  it('trigger answers 202 with the queued execution; inactive automations 409; unknown 404', async () => {
    const active = await createNoteAutomation(suite.t.http, 'manual');
    const lead = (await suite.t.http.post('/api/v1/leads', { title: 'Manual' })).body.data;
    const res = await suite.t.http.post(`/api/v1/automations/${active}/trigger`, {
      context: { lead: { _id: lead._id, title: 'Manual' } },
    });
    const done = await suite.h.acceptedRun(res);
    expect(res.body.data).toEqual({
      executionId: expect.stringMatching(/^[0-9a-f]{24}$/),
      workflowId: executionWorkflowId(suite.t.workspaceId, res.body.data.executionId),
      status: 'queued',
    });
    expect(done.status).toBe('completed');
    expect(await notesOf(suite.t.workspaceId, lead._id)).toHaveLength(1);

    const inactive = await createNoteAutomation(suite.t.http, 'x', { active: false });
    expect((await suite.t.http.post(`/api/v1/automations/${inactive}/trigger`, {})).status).toBe(409);
    expect((await suite.t.http.post('/api/v1/automations/0123456789abcdef01234567/trigger', {})).status).toBe(404);
  });

  it.each([
    [{ context: 'x' }, 'context'],
    [{ entityType: 'lead' }, 'entityId'],
    [{ entityType: 'planet', entityId: '0123456789abcdef01234567' }, 'entityType'],
  ])('trigger body %j is a 400 naming %s', async (body, field) => {
    const id = await createNoteAutomation(suite.t.http, 'x');
    expectError(await suite.t.http.post(`/api/v1/automations/${id}/trigger`, body), 400, field);
  });

  it('test mode records what would happen, writes nothing, skips delays, works while inactive', async () => {
    const id = await createAutomation(
      suite.t.http,
      chainGraph({ triggerType: 'lead_created' }, [
        { type: 'delay', data: { amount: 3, unit: 'days' } },
        action('create_note', { noteContent: 'Hello {{lead.title}}' }),
        action('http_request', { url: 'https://example.invalid/hook', method: 'POST', body: { t: '{{lead.title}}' } }),
      ]),
      { active: false },
    );
    const lead = (await suite.t.http.post('/api/v1/leads', { title: 'Tested' })).body.data;
    const res = await suite.t.http.post(`/api/v1/automations/${id}/test`, {
      testContext: { lead: { _id: lead._id, title: 'Tested' } },
    });
    const done = await suite.h.acceptedRun(res, undefined, 10_000);
    expect(res.body.data).toMatchObject({ status: 'queued', isTest: true });
    expect(done).toMatchObject({ status: 'completed', isTest: true });
    const steps = await suite.h.stepsOf(done._id);
    expect(steps.map((s) => [s.nodeId, s.status])).toEqual([
      ['trigger', 'completed'],
      ['n1', 'skipped'],
      ['n2', 'skipped'],
      ['n3', 'skipped'],
    ]);
    expect(steps[1]!.output).toEqual({ test: true, wouldWaitMs: 3 * 86_400_000 });
    expect(steps[2]!.output).toMatchObject({ test: true, wouldDo: expect.stringContaining('would add a note') });
    expect(steps[2]!.input).toEqual({ noteContent: 'Hello Tested' });
    expect(steps[3]!.output).toMatchObject({ wouldDo: 'test: would send POST https://example.invalid/hook' });
    expect(await notesOf(suite.t.workspaceId, lead._id)).toHaveLength(0);
    // Test runs neither count against caps nor toward totalRuns.
    expect((await suite.t.http.get(`/api/v1/automations/${id}`)).body.data.stats.totalRuns).toBe(0);
  });
});

/** A note automation (writing `note`), a lead titled `title`, and the engine's start request of one for the other. */
async function noteStartFor(note: string, title: string) {
  const automationId = await createNoteAutomation(suite.t.http, note);
  const lead = (await suite.t.http.post('/api/v1/leads', { title })).body.data;
  const start = {
    workspaceId: suite.t.workspaceId,
    automationId,
    triggerType: 'lead_created',
    entityType: 'lead',
    entityId: lead._id,
    context: { lead: { _id: lead._id } },
  };
  return { automationId, lead, start };
}

describe('idempotency', () => {
  it('the same triggerKey starts one execution; a replayed action step writes no second note', async () => {
    const { automationId, lead, start } = await noteStartFor('once', 'Once');
    const req = { ...start, triggerKey: `k-${lead._id}` };
    const [a, b] = await Promise.all([startExecution(suite.h.engine, req), startExecution(suite.h.engine, req)]);
    expect(a.status === 'skipped' || b.status === 'skipped').toBe(false);
    const ids = [a, b].map((r) => (r.status === 'skipped' ? null : r.execution._id));
    expect(ids[0]).toBe(ids[1]);
    const done = await suite.h.waitForExecution(ids[0]!);
    expect(done.status).toBe('completed');
    const again = await startExecution(suite.h.engine, req);
    expect(again).toMatchObject({ status: 'existing', execution: { _id: ids[0], status: 'completed' } });

    // Replay the step's activity as Temporal would after a lost completion: same output, no new note.
    const acts = await activitiesOf(suite.h);
    const input = {
      workspaceId: suite.t.workspaceId,
      executionId: ids[0]!,
      automationId,
      nodeId: 'n1',
      data: { actionType: 'create_note', config: { noteContent: 'once' } },
      context: { lead: { _id: lead._id }, system: { entityType: 'lead', entityId: lead._id } },
      isTest: false,
      actorUserId: suite.t.userId,
      timezone: 'Europe/Copenhagen',
      chain: [automationId],
      failureBehavior: 'stop' as const,
    };
    const replays = await Promise.all([acts.runAction(input), acts.runAction(input)]);
    expect(replays.map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(replays[0]!.output).toEqual((await suite.h.stepsOf(ids[0]!)).find((s) => s.nodeId === 'n1')!.output);
    expect(await notesOf(suite.t.workspaceId, lead._id)).toHaveLength(1);
  });
});

describe('when Temporal refuses the start', () => {
  const down = () => ({
    ...suite.h.engine,
    workflows: {
      ...suite.h.workflows,
      start: async () => {
        throw new Error('14 UNAVAILABLE: connection refused');
      },
    },
  });

  it('API starts mark the row failed and answer unavailable (503); retrying callers keep it running and a retry starts it', async () => {
    const { automationId, lead, start: base } = await noteStartFor('late', 'Late');

    await expect(startExecution(down(), { ...base, triggerKey: `api-${lead._id}` })).rejects.toMatchObject({
      code: 'unavailable',
    });
    const [failed] = await suite.h.executionsOf(automationId);
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('could not start the workflow') });

    await expect(startExecution(down(), { ...base, triggerKey: `ev-${lead._id}`, retryable: true })).rejects.toThrow(
      'UNAVAILABLE',
    );
    const again = await startExecution(suite.h.engine, { ...base, triggerKey: `ev-${lead._id}`, retryable: true });
    expect(again.status).toBe('existing');
    expect((await suite.h.waitForExecution((again as { execution: { _id: string } }).execution._id)).status).toBe(
      'completed',
    );
    expect(await notesOf(suite.t.workspaceId, lead._id)).toHaveLength(1);
  });
});
