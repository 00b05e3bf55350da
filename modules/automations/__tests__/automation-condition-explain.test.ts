/**
 * Issue 27 part 2: for each condition node the execution detail says which branch was taken and why
 * (`output.reason`, with the values read), and so does the run's Temporal Web UI summary (the
 * workflow's current details, read through the metadata query; without record values).
 */
import { createAutomation } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';

const suite = engineSuite('Condition explain');

const node = (id: string, type: string, data: Record<string, unknown>, y: number) => ({
  id,
  type,
  position: { x: 500, y },
  data,
});
const graph = {
  nodes: [
    node('trigger', 'trigger', { triggerType: 'lead_created' }, 0),
    node(
      'big',
      'condition',
      {
        label: 'Big deal',
        logic: 'and',
        conditions: [
          { field: 'lead.value', operator: 'greater_than', value: 1000 },
          { field: 'lead.title', operator: 'contains', value: 'VIP' },
        ],
      },
      200,
    ),
    node(
      'either',
      'condition',
      {
        logic: 'or',
        conditions: [
          { field: 'lead.value', operator: 'equals', value: 10 },
          { field: 'lead.title', operator: 'equals', value: 'nobody' },
        ],
      },
      400,
    ),
    node('done', 'action', { actionType: 'create_note', config: { noteContent: 'done' } }, 600),
  ],
  edges: [
    { id: 'e1', source: 'trigger', target: 'big', sourceHandle: null },
    { id: 'e2', source: 'big', target: 'either', sourceHandle: 'false' },
    { id: 'e3', source: 'either', target: 'done', sourceHandle: 'true' },
  ],
};

it('the execution detail and the Web UI summary name each condition node, its branch and why', async () => {
  const automationId = await createAutomation(suite.t.http, graph);
  const lead = (await suite.t.http.post('/api/v1/leads', { title: 'Small lead', value: 10 })).body.data;
  const done = await suite.h.triggerRun(suite.t.http, automationId, { entityType: 'lead', entityId: lead._id });
  expect(done.status).toBe('completed');

  const detail = await suite.t.http.get(`/api/v1/automations/executions/${done._id}`);
  expect(detail.status).toBe(200);
  const steps = detail.body.data.steps as { nodeId: string; handle: string | null; output: { reason?: string } }[];
  const big = steps.find((s) => s.nodeId === 'big')!;
  expect(big.handle).toBe('false');
  expect(big.output.reason).toBe(
    'branch false: not met (and): lead.value greater_than 1000 (value 10); lead.title contains "VIP" (value "Small lead")',
  );
  const either = steps.find((s) => s.nodeId === 'either')!;
  expect(either.handle).toBe('true');
  expect(either.output.reason).toBe('branch true: met (or): lead.value equals 10 (value 10)');

  const metadata = await suite.h.client.workflow
    .getHandle(done.workflowId)
    .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  expect(metadata.currentDetails).toBe(
    [
      '**Condition nodes**',
      '- `big` (Big deal) → branch false: not met (and): lead.value greater_than …; lead.title contains …',
      '- `either` → branch true: met (or): lead.value equals …',
    ].join('\n'),
  );
  // Record values stay out of the Temporal metadata.
  expect(metadata.currentDetails).not.toContain('Small lead');
});
