import { Lead } from '../../leads/lead.entity';
import { Note } from '../../notes/note.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { createRecord } from '../../../platform/shared/records';
import { SCOPES } from '../../../platform/context';
import { startExecution, type StartResult } from '../engine/start';
import { newId } from '../../../platform/ids';
import { action, chainGraph, createAutomation, waitFor } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';
import { graphNode } from '../../../test/support/definitions';

const suite = engineSuite('Caps');

const noteGraph = () =>
  chainGraph({ triggerType: 'webhook', config: { secret: 'k' } }, [
    action('http_request', { url: 'http://127.0.0.1:9/unused', method: 'GET' }),
  ]);
const start = (automationId: string): Promise<StartResult> =>
  startExecution(suite.h.engine, {
    workspaceId: suite.t.workspaceId,
    automationId,
    triggerType: 'webhook',
    triggerKey: `k-${newId()}`,
    context: {},
  });
const automation = async (id: string) => (await suite.t.http.get(`/api/v1/automations/${id}`)).body.data;

describe('run caps', () => {
  it('maxRunsPerHour 2: the third start is skipped, with the reason on the automation (trigger answers 409)', async () => {
    const id = await createAutomation(suite.t.http, { ...noteGraph(), rateLimits: { maxRunsPerHour: 2 } });
    expect((await suite.t.http.post(`/api/v1/automations/${id}/trigger`, {})).status).toBe(202);
    expect((await suite.t.http.post(`/api/v1/automations/${id}/trigger`, {})).status).toBe(202);
    const third = await suite.t.http.post(`/api/v1/automations/${id}/trigger`, {});
    expect(third.status).toBe(409);
    expect(third.body.error).toBe('run skipped: maxRunsPerHour reached (2 runs in the last hour)');
    const a = await automation(id);
    expect(a.stats).toMatchObject({
      totalRuns: 2,
      skippedRuns: 1,
      lastSkipReason: 'maxRunsPerHour reached (2 runs in the last hour)',
      lastSkippedAt: expect.any(String),
    });
    expect(a.isActive).toBe(true);
    expect(await suite.h.executionsOf(id)).toHaveLength(2);
    // Test runs ignore caps.
    expect((await suite.t.http.post(`/api/v1/automations/${id}/test`, {})).status).toBe(202);
  });

  it.each([['maxRunsPerDay'], ['maxRunsPerWeek']])('%s counts the same way', async (cap) => {
    const id = await createAutomation(suite.t.http, { ...noteGraph(), rateLimits: { [cap]: 1 } });
    expect((await start(id)).status).toBe('started');
    expect(await start(id)).toEqual({
      status: 'skipped',
      reason: `${cap} reached (1 runs in the last ${cap === 'maxRunsPerDay' ? 'day' : 'week'})`,
    });
  });

  it('maxTotalRuns 2: the second run deactivates the automation; later starts are skipped', async () => {
    const id = await createAutomation(suite.t.http, { ...noteGraph(), rateLimits: { maxTotalRuns: 2 } });
    expect((await start(id)).status).toBe('started');
    expect((await automation(id)).isActive).toBe(true);
    expect((await start(id)).status).toBe('started');
    const a = await automation(id);
    expect(a).toMatchObject({
      isActive: false,
      deactivatedReason: 'maxTotalRuns reached (2 runs)',
      stats: { totalRuns: 2 },
    });
    expect(await start(id)).toEqual({ status: 'skipped', reason: 'automation is inactive' });
    expect((await suite.t.http.post(`/api/v1/automations/${id}/trigger`, {})).status).toBe(409);
  });

  it('10 concurrent starts against maxRunsPerHour 3 start exactly 3', async () => {
    const id = await createAutomation(suite.t.http, { ...noteGraph(), rateLimits: { maxRunsPerHour: 3 } });
    const results = await Promise.all(Array.from({ length: 10 }, () => start(id)));
    expect(results.filter((r) => r.status === 'started')).toHaveLength(3);
    expect(results.filter((r) => r.status === 'skipped')).toHaveLength(7);
    expect(await suite.h.executionsOf(id)).toHaveLength(3);
    expect((await automation(id)).stats).toMatchObject({ totalRuns: 3, skippedRuns: 7 });
  });

  it('10 concurrent starts against maxTotalRuns 3 start exactly 3 and deactivate', async () => {
    const id = await createAutomation(suite.t.http, { ...noteGraph(), rateLimits: { maxTotalRuns: 3 } });
    const results = await Promise.all(Array.from({ length: 10 }, () => start(id)));
    expect(results.filter((r) => r.status === 'started')).toHaveLength(3);
    expect(await automation(id)).toMatchObject({ isActive: false, stats: { totalRuns: 3 } });
  });
});

const lookupGraph = (source: string, after: { type: string; data: Record<string, unknown> }) => ({
  nodes: [
    graphNode('trigger', 'trigger', [500, 0], { triggerType: 'webhook', config: { secret: 'k' } }),
    graphNode('find', 'lookup', [500, 200], {
      label: 'Campaign leads',
      entityType: 'Lead',
      mode: 'all',
      filters: [{ field: 'source', operator: 'equals', value: source }],
      sortField: 'createdAt',
      sortOrder: 1,
    }),
    graphNode('each', after.type, [500, 400], after.data),
    graphNode('none', 'action', [800, 400], {
      actionType: 'create_record',
      config: { recordType: 'lead', fieldValues: { title: `nobody from ${source}` } },
    }),
  ],
  edges: [
    { id: 'e1', source: 'trigger', target: 'find', sourceHandle: null },
    { id: 'e2', source: 'find', target: 'each', sourceHandle: 'found' },
    { id: 'e3', source: 'find', target: 'none', sourceHandle: 'empty' },
  ],
});

async function seedLeads(n: number, source: string): Promise<string[]> {
  const em = forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId);
  const ctx = {
    em,
    actor: { workspaceId: suite.t.workspaceId, userId: suite.t.userId, role: 'owner' as const, scopes: SCOPES },
  };
  const leads = Array.from({ length: n }, (_, i) =>
    createRecord(ctx, Lead, {
      title: `${source} ${i}`,
      source,
      status: 'new',
      ownerId: suite.t.userId,
      customFields: {},
      tags: [],
      scoreBreakdown: [],
    } as never),
  );
  em.persist(leads);
  await em.flush();
  return leads.map((l) => l._id);
}

describe('lookup mode all: fan-out', () => {
  it('50 matches start 50 child executions that each act on their record; the parent completes', async () => {
    const source = `fanout-${newId()}`;
    const leadIds = await seedLeads(50, source);
    const id = await createAutomation(
      suite.t.http,
      lookupGraph(
        source,
        action('create_note', { noteContent: 'Hello {{lead.title}} via {{lookup.campaign_leads.title}}' }),
      ),
    );
    const parent = await suite.h.triggerRun(suite.t.http, id, {}, 30_000);
    expect(parent.status).toBe('completed');
    const lookupStep = (await suite.h.stepsOf(parent._id)).find((s) => s.nodeId === 'find')!;
    expect(lookupStep).toMatchObject({
      status: 'completed',
      handle: 'fanout',
      output: { found: true, count: 50, mode: 'all', truncated: false },
    });
    expect((await suite.h.stepsOf(parent._id)).map((s) => s.nodeId)).toEqual(['trigger', 'find']);

    const children = await waitFor(
      async () => {
        const list = (await suite.h.executionsOf(id)).filter((e) => e.parentExecutionId === parent._id);
        return list.length === 50 && list.every((e) => e.status === 'completed') ? list : null;
      },
      60_000,
      '50 completed children',
    );
    expect(new Set(children.map((c) => c.entityId))).toEqual(new Set(leadIds));
    const notes = await forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId).find(Note, {
      leadRef: { $in: leadIds },
    });
    expect(notes).toHaveLength(50);
    const byLead = new Map(notes.map((n) => [n.leadRef, n.content]));
    expect(byLead.get(leadIds[7]!)).toBe(`Hello ${source} 7 via ${source} 7`);
    // Children run only the found branch, with the parent's graph snapshot.
    expect((await suite.h.stepsOf(children[0]!._id)).map((s) => s.nodeId)).toEqual(['each']);
    expect(children[0]!.graph).toEqual(parent.graph);
    // Children are part of the parent's run: they do not count as runs of the automation.
    expect((await automation(id)).stats.totalRuns).toBe(1);
  }, 90_000);

  it('no match takes the empty branch', async () => {
    const source = `none-${newId()}`;
    const id = await createAutomation(suite.t.http, lookupGraph(source, action('create_note', { noteContent: 'x' })));
    const parent = await suite.h.triggerRun(suite.t.http, id);
    expect(parent.status).toBe('completed');
    expect((await suite.h.stepsOf(parent._id)).map((s) => [s.nodeId, s.handle])).toEqual([
      ['trigger', null],
      ['find', 'empty'],
      ['none', null],
    ]);
  });

  it('is capped by the plan (trial: 100) and says so; test mode fans out nothing', async () => {
    const source = `cap-${newId()}`;
    await seedLeads(101, source);
    const id = await createAutomation(suite.t.http, lookupGraph(source, action('create_note', { noteContent: 'x' })));
    const done = await suite.h.acceptedRun(await suite.t.http.post(`/api/v1/automations/${id}/test`, {}));
    const step = (await suite.h.stepsOf(done._id)).find((s) => s.nodeId === 'find')!;
    expect(step.output).toMatchObject({ count: 101, truncated: true, cap: 100, fanOut: false });
    expect((step.output as { matchIds: string[] }).matchIds).toHaveLength(100);
    expect((await suite.h.executionsOf(id)).filter((e) => e.parentExecutionId)).toHaveLength(0);
  });

  it('cancelling a parent still running cancels its running children', async () => {
    const source = `cancel-${newId()}`;
    await seedLeads(3, source);
    const graph = lookupGraph(source, { type: 'delay', data: { amount: 7, unit: 'days' } });
    // A parallel branch keeps the parent running after the fan-out.
    graph.nodes.push({
      id: 'wait',
      type: 'delay',
      position: { x: 100, y: 200 },
      data: { amount: 7, unit: 'days' },
    } as never);
    graph.edges.push({ id: 'e4', source: 'trigger', target: 'wait', sourceHandle: null });
    const id = await createAutomation(suite.t.http, graph);
    const res = await suite.t.http.post(`/api/v1/automations/${id}/trigger`, {});
    const children = await waitFor(
      async () => {
        const list = (await suite.h.executionsOf(id)).filter((e) => e.parentExecutionId === res.body.data.executionId);
        return list.length === 3 ? list : null;
      },
      20_000,
      'three children',
    );
    await waitFor(
      async () =>
        (await Promise.all(children.map((c) => suite.h.stepsOf(c._id)))).every((s) =>
          s.some((x) => x.nodeType === 'delay' && x.status === 'running'),
        ),
      20_000,
      'children waiting',
    );
    const cancel = await suite.t.http.post(`/api/v1/automations/executions/${res.body.data.executionId}/cancel`);
    expect(cancel.body).toEqual({ data: { cancelled: true, childrenCancelled: 3 } });
    for (const c of children) expect((await suite.h.waitForExecution(c._id)).status).toBe('cancelled');
    await waitFor(
      async () =>
        (await suite.h.client.workflow.getHandle(children[0]!.workflowId).describe()).status.name === 'CANCELLED',
      10_000,
      'child workflow cancelled',
    );
  }, 60_000);
});
