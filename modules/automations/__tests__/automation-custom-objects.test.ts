import { action, chainGraph, createAutomation, waitFor } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';

// Custom objects in automations: record triggers, the CustomObjectRecord lookup and create/update_record with
// custom_object.
let machinesId: string;
const base = '/api/v1/custom-objects';

const suite = engineSuite('Custom automations');
beforeAll(async () => {
  machinesId = (await suite.t.http.post(base, { slug: 'machines', singular: 'Machine', plural: 'Machines' })).body.data
    ._id;
  await suite.t.http.post(base, { slug: 'logs', singular: 'Log', plural: 'Logs' });
  for (const f of [
    { slug: 'name', label: 'Name', type: 'text' },
    { slug: 'status', label: 'Status', type: 'text' },
    { slug: 'hours', label: 'Hours', type: 'number' },
  ])
    await suite.t.http.post(`${base}/machines/fields`, f);
  await suite.t.http.post(`${base}/logs/fields`, { slug: 'note', label: 'Note', type: 'text' });
}, 60_000);

const runsOf = async (automationId: string, n = 1) =>
  waitFor(
    async () => {
      const runs = await suite.h.executionsOf(automationId);
      return runs.length >= n ? runs : null;
    },
    15_000,
    `${n} run(s) of ${automationId}`,
  );

describe('custom objects in automations', () => {
  it('custom_object_created starts a run with custom_record; update_record custom_object writes it', async () => {
    const id = await createAutomation(
      suite.t.http,
      chainGraph({ triggerType: 'custom_object_created', config: { customObjectId: machinesId } }, [
        action('update_record', {
          recordType: 'custom_object',
          fieldUpdates: [{ fieldKey: 'status', value: 'seen {{custom_record.name}} #{{custom_record.recordNumber}}' }],
        }),
      ]),
    );
    const d = suite.h.dispatcher([suite.t.workspaceId]);
    const rec = (await suite.t.http.post(`${base}/machines/records`, { name: 'Lathe' })).body.data;
    await (
      await suite.t.http.post(`${base}/logs/records`, { note: 'not a machine' })
    ).body.data;
    await d.drainOnce();
    const [run] = await runsOf(id);
    const done = await suite.h.waitForExecution(run!._id);
    expect(done.status).toBe('completed');
    expect(done.entityType).toBe('custom_object');
    expect((await suite.t.http.get(`${base}/machines/records/${rec._id}`)).body.data.status).toBe(
      `seen Lathe #${rec.recordNumber}`,
    );
    await suite.t.http.post(`/api/v1/automations/${id}/toggle`);
  });

  it('record_created with entityTypes custom_object runs create_record custom_object', async () => {
    const id = await createAutomation(
      suite.t.http,
      chainGraph({ triggerType: 'record_created', config: { entityTypes: ['custom_object'] } }, [
        action('create_record', {
          recordType: 'custom_object',
          customObjectId: 'logs',
          fieldValues: { note: 'machine {{custom_record.name}} created' },
        }),
      ]),
    );
    const d = suite.h.dispatcher([suite.t.workspaceId]);
    await suite.t.http.post(`${base}/machines/records`, { name: 'Drill' });
    await suite.t.http.post('/api/v1/leads', { title: 'Not custom' });
    await d.drainOnce();
    const [run] = await runsOf(id);
    const done = await suite.h.waitForExecution(run!._id);
    expect(done.status).toBe('completed');
    const step = (await suite.h.stepsOf(done._id)).find((s) => s.nodeId === 'n1')!;
    const logId = (step.output as { recordId: string }).recordId;
    expect((await suite.t.http.get(`${base}/logs/records/${logId}`)).body.data.note).toBe('machine Drill created');
    // The log it created is itself a custom record: the loop guard keeps it from starting this automation again.
    await d.drainOnce();
    expect((await suite.h.executionsOf(id)).length).toBe(1);
    await suite.t.http.post(`/api/v1/automations/${id}/toggle`);
  });

  it('a CustomObjectRecord lookup filters on field slugs and feeds update_record; unknown objects fail the step', async () => {
    // An unknown object is refused when the automation is saved, naming the node.
    const unknown = await suite.t.http.post('/api/v1/automations', {
      name: 'Unknown object',
      ...chainGraph({ triggerType: 'lead_created' }, [
        { id: 'look', type: 'lookup', data: { entityType: 'CustomObjectRecord', customObjectId: 'nope' } },
      ]),
    });
    expect([unknown.status, unknown.body.details?.[0]]).toEqual([
      400,
      {
        path: 'nodes[1].data.customObjectId',
        nodeId: 'look',
        field: 'customObjectId',
        error: 'no custom object with id nope in this workspace',
      },
    ]);
    await suite.t.http.post(`${base}/machines/records`, { name: 'Small', hours: 5 });
    const big = (await suite.t.http.post(`${base}/machines/records`, { name: 'Big', hours: 500 })).body.data;
    const lookup = {
      id: 'look',
      type: 'lookup',
      data: {
        label: 'Busy machine',
        entityType: 'CustomObjectRecord',
        customObjectId: 'machines',
        filters: [{ field: 'hours', operator: 'greater_than', value: 100 }],
      },
    };
    const graph = chainGraph({ triggerType: 'lead_created' }, [
      lookup,
      action('update_record', {
        recordType: 'custom_object',
        fieldUpdates: [{ fieldKey: 'status', value: 'busy ({{lookup.busy_machine.hours}} h)' }],
      }),
    ]);
    graph.edges[1]!.sourceHandle = 'found' as never;
    const id = await createAutomation(suite.t.http, graph);
    const done = await suite.h.triggerRun(suite.t.http, id);
    expect(done.status).toBe('completed');
    const steps = await suite.h.stepsOf(done._id);
    expect(steps.find((s) => s.nodeId === 'look')!.output).toMatchObject({
      found: true,
      count: 1,
      _id: big._id,
      name: 'Big',
      object: 'machines',
    });
    expect((await suite.t.http.get(`${base}/machines/records/${big._id}`)).body.data.status).toBe('busy (500 h)');

    // One deleted after the save fails the step when the run reaches it.
    expect(
      (await suite.t.http.post(base, { slug: 'gone-objects', singular: 'Gone object', plural: 'Gone objects' })).status,
    ).toBe(201);
    const bad = await createAutomation(
      suite.t.http,
      chainGraph({ triggerType: 'lead_created' }, [
        { ...lookup, data: { ...lookup.data, customObjectId: 'gone-objects', filters: [] } },
      ]),
    );
    expect((await suite.t.http.delete(`${base}/gone-objects`)).status).toBe(200);
    const failed = await suite.h.waitForExecution(
      (await suite.t.http.post(`/api/v1/automations/${bad}/trigger`, {})).body.data.executionId,
    );
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/no custom object gone-objects/);
  });
});
