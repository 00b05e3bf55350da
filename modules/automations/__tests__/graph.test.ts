import { formatGraphErrors, validateAutomationGraph, type GraphValidation } from '../graph';
import { clone, edge, node, validGraph, type TestGraph } from './fixtures';

const run = (g: TestGraph, opts = {}): GraphValidation => validateAutomationGraph(g.nodes, g.edges, opts);
const errorsOf = (g: TestGraph, opts = {}) => {
  const r = run(g, opts);
  return r.ok ? [] : r.errors;
};
const at = (g: TestGraph, id: string) => g.nodes.find((n) => n.id === id)!;
const idx = (g: TestGraph, id: string) => g.nodes.findIndex((n) => n.id === id);

/** A graph of trigger → one node of the given type and data. */
function single(type: string, data: Record<string, unknown>): TestGraph {
  return {
    nodes: [node('t', 'trigger', { triggerType: 'record_created' }), node('n', type, data)],
    edges: [edge('e', 't', 'n')],
  };
}
const action = (actionType: string, config?: unknown) =>
  single('action', config === undefined ? { actionType } : { actionType, config });
const trigger = (triggerType: string, config?: unknown) => ({
  nodes: [node('t', 'trigger', { triggerType, config })],
  edges: [],
});

describe('validateAutomationGraph: the valid reference graph', () => {
  it('accepts a graph with every node type and handle kind', () => {
    expect(run(validGraph())).toEqual({ ok: true, warnings: [] });
  });

  it('accepts an empty draft only with allowEmpty', () => {
    expect(run({ nodes: [], edges: [] }, { allowEmpty: true }).ok).toBe(true);
    expect(errorsOf({ nodes: [], edges: [] })).toEqual([
      { path: 'nodes', error: 'needs exactly one trigger node; found none' },
    ]);
  });
});

describe('validateAutomationGraph: structure', () => {
  const cases: [string, (g: TestGraph) => void, string, string][] = [
    ['no trigger', (g) => (g.nodes[0]!.type = 'action'), 'nodes', 'needs exactly one trigger node; found none'],
    [
      'two triggers',
      (g) => g.nodes.push(node('trigger_2', 'trigger', { triggerType: 'lead_created' })),
      'nodes[8].type',
      'only one trigger node is allowed (nodes[0] is the trigger)',
    ],
    [
      'duplicate node id',
      (g) => (at(g, 'action_task').id = 'action_note'),
      'nodes[6].id',
      'duplicate node id "action_note" (also nodes[5])',
    ],
    [
      'unknown node type',
      (g) => (at(g, 'action_task').type = 'merge'),
      'nodes[6].type',
      'must be one of trigger, action, condition, delay, ai, lookup',
    ],
    ['duplicate edge id', (g) => (g.edges[6]!.id = 'e1'), 'edges[6].id', 'duplicate edge id "e1" (also edges[0])'],
    [
      'edge from an unknown node',
      (g) => g.edges.push(edge('e8', 'ghost', 'action_task')),
      'edges[7].source',
      'unknown node "ghost"',
    ],
    [
      'edge to an unknown node',
      (g) => g.edges.push(edge('e8', 'action_task', 'ghost')),
      'edges[7].target',
      'unknown node "ghost"',
    ],
    [
      'edge into the trigger',
      (g) => g.edges.push(edge('e8', 'action_task', 'trigger_1')),
      'edges[7].target',
      'no edge may lead into the trigger node',
    ],
    [
      'duplicate link',
      (g) => g.edges.push(edge('e8', 'delay_1', 'action_task')),
      'edges[7]',
      'duplicates edges[6] (same source, handle and target)',
    ],
    [
      'unreachable node',
      (g) => g.nodes.push(node('orphan', 'delay', { delayMinutes: 5 })),
      'nodes[8]',
      'node "orphan" is not reachable from the trigger',
    ],
    [
      'unreachable when its only edge is removed',
      (g) => g.edges.splice(6, 1),
      'nodes[6]',
      'node "action_task" is not reachable',
    ],
    [
      'cycle',
      (g) => g.edges.push(edge('e8', 'action_task', 'delay_1')),
      'edges[7]',
      'creates a cycle (delay_1 → action_task → delay_1)',
    ],
    [
      'self loop',
      (g) => g.edges.push(edge('e8', 'action_note', 'action_note')),
      'edges[7]',
      'creates a cycle (action_note → action_note)',
    ],
  ];
  it.each(cases)('%s', (_name, mutate, path, error) => {
    const g = clone(validGraph());
    mutate(g);
    expect(errorsOf(g)).toContainEqual({ path, error: expect.stringContaining(error) });
  });

  it('reports each problem once, without follow-up unreachable noise for a bad handle', () => {
    const g = clone(validGraph());
    g.edges[1]!.sourceHandle = 'yes';
    expect(errorsOf(g)).toEqual([
      { path: 'edges[1].sourceHandle', error: '"yes" is not a handle of a lookup node (found, empty, error)' },
    ]);
  });

  it('bounds the number of nodes and edges', () => {
    const g = validGraph();
    const many = Array.from({ length: 201 }, (_, i) => node(`n${i}`, 'delay', { delayMinutes: 5 }));
    expect(errorsOf({ nodes: [g.nodes[0]!, ...many], edges: [] })).toContainEqual({
      path: 'nodes',
      error: 'at most 200 nodes',
    });
    const edges = Array.from({ length: 401 }, (_, i) => edge(`x${i}`, 'trigger_1', 'lookup_1'));
    expect(errorsOf({ nodes: g.nodes, edges })).toContainEqual({ path: 'edges', error: 'at most 400 edges' });
  });

  it('formats the first error for the 400 message', () => {
    const g = clone(validGraph());
    g.nodes[0]!.type = 'action';
    g.edges.push(edge('e8', 'ghost', 'action_task'));
    const r = run(g);
    expect(r.ok).toBe(false);
    expect(formatGraphErrors(r.ok ? [] : r.errors)).toMatch(
      /^nodes: needs exactly one trigger node; found none \(and \d+ more problems?\)$/,
    );
  });
});

describe('validateAutomationGraph: source handles', () => {
  const cases: [string, string | null | undefined, string | null][] = [
    ['condition', 'true', null],
    ['condition', 'false', null],
    ['condition', null, 'is required from a condition node (true, false)'],
    ['condition', 'found', '"found" is not a handle of a condition node (true, false)'],
    ['lookup', 'found', null],
    ['lookup', 'empty', null],
    ['lookup', 'error', null],
    ['lookup', undefined, 'is required from a lookup node (found, empty, error)'],
    ['lookup', 'true', '"true" is not a handle of a lookup node (found, empty, error)'],
    ['ai', null, null],
    ['ai', 'true', null],
    ['ai', 'false', null],
    ['ai', 'found', '"found" is not a handle of a ai node (true, false, or null)'],
    ['action', null, null],
    ['action', '', null],
    ['action', 'true', 'must be null: a action node does not branch'],
    ['delay', 'false', 'must be null: a delay node does not branch'],
    ['trigger', 'true', 'must be null: a trigger node does not branch'],
  ];
  const data: Record<string, Record<string, unknown>> = {
    condition: { conditions: [{ field: 'lead.score', operator: 'is_true' }] },
    lookup: { entityType: 'Lead' },
    ai: { prompt: 'x' },
    action: { actionType: 'create_note', config: { noteContent: 'x' } },
    delay: { delayMinutes: 5 },
  };
  it.each(cases)('%s with %j', (type, handle, error) => {
    const g: TestGraph =
      type === 'trigger'
        ? {
            nodes: [node('t', 'trigger', { triggerType: 'lead_created' }), node('x', 'delay', { delayMinutes: 5 })],
            edges: [{ ...edge('e2', 't', 'x'), sourceHandle: handle }],
          }
        : {
            nodes: [
              node('t', 'trigger', { triggerType: 'lead_created' }),
              node('n', type, data[type]!),
              node('x', 'delay', { delayMinutes: 5 }),
            ],
            edges: [edge('e1', 't', 'n'), { ...edge('e2', 'n', 'x'), sourceHandle: handle }],
          };
    const errs = errorsOf(g);
    if (error === null) expect(errs).toEqual([]);
    else
      expect(errs).toEqual([
        { path: 'edges[1].sourceHandle'.replace('[1]', type === 'trigger' ? '[0]' : '[1]'), error },
      ]);
  });
});

describe('validateAutomationGraph: triggers', () => {
  const ok: [string, unknown][] = [
    ['lead_created', undefined],
    ['deal_stage_changed', {}],
    ['deal_stage_changed', { stageId: '' }],
    ['tag_added', { entityType: 'People', tagId: 'vip' }],
    ['tag_removed', {}],
    ['record_created', { entityTypes: ['lead', 'deal'] }],
    ['record_changed', { entityTypes: ['all'], changeTypes: ['field_changed', 'tag_added'], tagId: 'any' }],
    ['scheduled', { frequency: 'interval', intervalMinutes: 15 }],
    ['scheduled', { frequency: 'weekly', dayOfWeek: 1, time: '09:30' }],
    ['webhook', { secret: 's3cret', entityMapping: { entityType: 'Lead', entityIdField: 'leadId' } }],
    ['webhook', {}],
    ['sms_received', { keyword: 'STOP' }],
    ['booking_created', { bookingConfigId: 'cfg1' }],
    ['custom_object_created', { customObjectId: 'obj1' }],
  ];
  it.each(ok)('accepts %s %j', (type, config) => expect(errorsOf(trigger(type, config))).toEqual([]));

  const bad: [string, unknown, string, string][] = [
    ['', undefined, 'nodes[0].data.triggerType', 'is required'],
    ['lead_exploded', undefined, 'nodes[0].data.triggerType', 'unknown trigger type "lead_exploded"'],
    ['lead_created', 'x', 'nodes[0].data.config', 'must be an object'],
    ['deal_stage_changed', { stageId: { id: 1 } }, 'nodes[0].data.config.stageId', 'has an invalid value'],
    [
      'tag_added',
      { entityType: 'Deal' },
      'nodes[0].data.config.entityType',
      'must be one of all, Lead, People, Company',
    ],
    ['tag_added', { tagId: 5 }, 'nodes[0].data.config.tagId', 'must be a string'],
    [
      'record_created',
      { entityTypes: ['lead', 'invoice'] },
      'nodes[0].data.config.entityTypes[1]',
      'must be one of all, lead, company',
    ],
    ['record_created', { entityTypes: [] }, 'nodes[0].data.config.entityTypes', 'must not be empty'],
    [
      'record_changed',
      { changeTypes: ['deleted'] },
      'nodes[0].data.config.changeTypes[0]',
      'must be one of field_changed, stage_changed, tag_added, tag_removed',
    ],
    [
      'scheduled',
      undefined,
      'nodes[0].data.config.frequency',
      'is required (one of interval, hourly, daily, weekly, monthly)',
    ],
    ['scheduled', 'daily', 'nodes[0].data.config', 'must be an object'],
    [
      'scheduled',
      { frequency: 'yearly' },
      'nodes[0].data.config.frequency',
      'must be one of interval, hourly, daily, weekly, monthly',
    ],
    [
      'scheduled',
      { frequency: 'interval', intervalMinutes: 7 },
      'nodes[0].data.config.intervalMinutes',
      'must be one of 5, 10, 15, 30',
    ],
    ['scheduled', { frequency: 'daily', time: '25:00' }, 'nodes[0].data.config.time', 'must be HH:mm'],
    [
      'scheduled',
      { frequency: 'weekly', time: '09:00', dayOfWeek: 7 },
      'nodes[0].data.config.dayOfWeek',
      'must be an integer from 0 (Sunday) to 6 (Saturday)',
    ],
    [
      'scheduled',
      { frequency: 'monthly', time: '09:00', dayOfMonth: 31 },
      'nodes[0].data.config.dayOfMonth',
      'must be an integer from 1 to 28',
    ],
    ['webhook', { secret: 42 }, 'nodes[0].data.config.secret', 'must be a string'],
    [
      'webhook',
      { entityMapping: { entityType: 'Offer' } },
      'nodes[0].data.config.entityMapping.entityType',
      'must be one of Lead, People, Company, Deal, none',
    ],
    [
      'webhook',
      { entityMapping: { entityType: 'Deal' } },
      'nodes[0].data.config.entityMapping.entityIdField',
      'is required when entityType is Deal',
    ],
    ['sms_replied', { keyword: 'x'.repeat(51) }, 'nodes[0].data.config.keyword', 'must be at most 50 characters'],
  ];
  it.each(bad)('refuses %s %j', (type, config, path, error) => {
    expect(errorsOf(trigger(type, config))).toContainEqual({ path, error: expect.stringContaining(error) });
  });

  it('warns about legacy triggers without failing', () => {
    const r = run(trigger('lead_created'));
    expect(r).toEqual({
      ok: true,
      warnings: [
        {
          path: 'nodes[0].data.triggerType',
          error: 'lead_created is a legacy trigger; prefer record_created with entityTypes',
        },
      ],
    });
  });
});

describe('validateAutomationGraph: nodes of the reference graph', () => {
  it.each([
    [
      'delay without unit',
      'delay_1',
      { amount: 2 },
      'nodes[4].data.delayUnit',
      'is required with amount (minutes, hours, days, weeks)',
    ],
    [
      'delay with delayAmount but no unit',
      'delay_1',
      { delayAmount: 2 },
      'nodes[4].data.delayUnit',
      'is required with delayAmount',
    ],
    [
      'delay with bad delayUnit',
      'delay_1',
      { delayAmount: 1, delayUnit: 'months' },
      'nodes[4].data.delayUnit',
      'must be one of minutes, hours, days, weeks',
    ],
    ['delay waitDays over a year', 'delay_1', { waitDays: 400 }, 'nodes[4].data.waitDays', 'must be at most 365 days'],
    [
      'delay with zero amount',
      'delay_1',
      { amount: 0, unit: 'days' },
      'nodes[4].data.amount',
      'must be a number greater than 0',
    ],
    [
      'delay with bad unit',
      'delay_1',
      { amount: 1, unit: 'months' },
      'nodes[4].data.unit',
      'must be one of minutes, hours, days, weeks',
    ],
    ['delay over a year', 'delay_1', { amount: 53, unit: 'weeks' }, 'nodes[4].data.amount', 'must be at most 365 days'],
    [
      'delay minutes negative',
      'delay_1',
      { delayMinutes: -5 },
      'nodes[4].data.delayMinutes',
      'must be a number greater than 0',
    ],
    [
      'delay with nothing',
      'delay_1',
      {},
      'nodes[4].data.delayAmount',
      'is required: delayMinutes, or an amount (delayAmount',
    ],
    [
      'lookup without entityType',
      'lookup_1',
      { mode: 'first' },
      'nodes[1].data.entityType',
      'is required (one of Lead, Deal, Company, People, Offer',
    ],
    [
      'lookup with unknown entityType',
      'lookup_1',
      { entityType: 'Invoice' },
      'nodes[1].data.entityType',
      'must be one of Lead, Deal, Company',
    ],
    [
      'lookup custom object without id',
      'lookup_1',
      { entityType: 'CustomObjectRecord' },
      'nodes[1].data.customObjectId',
      'is required when entityType is CustomObjectRecord',
    ],
    [
      'lookup bad mode',
      'lookup_1',
      { entityType: 'Lead', mode: 'each' },
      'nodes[1].data.mode',
      'must be one of first, count, all',
    ],
    [
      'lookup bad sortOrder',
      'lookup_1',
      { entityType: 'Lead', sortOrder: 'desc' },
      'nodes[1].data.sortOrder',
      'must be -1 (descending) or 1 (ascending)',
    ],
    [
      'lookup bad filter operator',
      'lookup_1',
      { entityType: 'Lead', filters: [{ field: 'email', operator: 'like', value: 'x' }] },
      'nodes[1].data.filters[0].operator',
      'must be one of equals',
    ],
    [
      'lookup filter without field',
      'lookup_1',
      { entityType: 'Lead', filters: [{ operator: 'exists' }] },
      'nodes[1].data.filters[0].field',
      'is required',
    ],
    [
      'lookup changeDetection not boolean',
      'lookup_1',
      { entityType: 'Lead', changeDetection: 'yes' },
      'nodes[1].data.changeDetection',
      'must be true or false',
    ],
    [
      'lookup watchedFields not strings',
      'lookup_1',
      { entityType: 'Lead', watchedFields: [1] },
      'nodes[1].data.watchedFields[0]',
      'must be a string',
    ],
    ['ai without prompt', 'ai_1', { outputMode: 'text' }, 'nodes[3].data.prompt', 'is required'],
    [
      'ai bad outputMode',
      'ai_1',
      { prompt: 'x', outputMode: 'xml' },
      'nodes[3].data.outputMode',
      'must be one of text, json_schema',
    ],
    [
      'ai bad reasoningEffort',
      'ai_1',
      { prompt: 'x', reasoningEffort: 'max' },
      'nodes[3].data.reasoningEffort',
      'must be one of none, low, medium, high',
    ],
    [
      'ai json_schema without schema',
      'ai_1',
      { prompt: 'x', outputMode: 'json_schema' },
      'nodes[3].data.schema',
      'is required with outputMode json_schema',
    ],
    [
      'ai schema not an object schema',
      'ai_1',
      { prompt: 'x', outputMode: 'json_schema', schema: { type: 'array' } },
      'nodes[3].data.schema',
      'must have type "object"',
    ],
    [
      'ai schema without properties',
      'ai_1',
      { prompt: 'x', outputMode: 'json_schema', schema: { type: 'object', properties: {} } },
      'nodes[3].data.schema',
      'must define at least one property',
    ],
    [
      'ai schema bad JSON text',
      'ai_1',
      { prompt: 'x', outputMode: 'json_schema', schema: '{nope' },
      'nodes[3].data.schema',
      'must be a JSON Schema object',
    ],
    ['condition without conditions', 'condition_1', { logic: 'and' }, 'nodes[2].data.conditions', 'is required'],
    [
      'condition with empty conditions',
      'condition_1',
      { conditions: [] },
      'nodes[2].data.conditions',
      'must not be empty',
    ],
    [
      'condition bad logic',
      'condition_1',
      { conditions: [{ field: 'lead.score', operator: 'exists' }], logic: 'xor' },
      'nodes[2].data.logic',
      'must be one of and, or',
    ],
    [
      'condition bad operator',
      'condition_1',
      { conditions: [{ field: 'lead.score', operator: 'gt', value: 1 }] },
      'nodes[2].data.conditions[0].operator',
      'must be one of equals',
    ],
    [
      'condition bare field',
      'condition_1',
      { conditions: [{ field: 'score', operator: 'exists' }] },
      'nodes[2].data.conditions[0].field',
      'needs a namespace, e.g. lead.score',
    ],
    [
      'condition unknown namespace',
      'condition_1',
      { conditions: [{ field: 'foo.bar', operator: 'exists' }] },
      'nodes[2].data.conditions[0].field',
      'unknown namespace "foo"',
    ],
    [
      'condition numeric op with text',
      'condition_1',
      { conditions: [{ field: 'deal.value', operator: 'greater_than', value: 'lots' }] },
      'nodes[2].data.conditions[0].value',
      'must be a number for greater_than',
    ],
    [
      'condition between malformed',
      'condition_1',
      { conditions: [{ field: 'deal.value', operator: 'between', value: [1] }] },
      'nodes[2].data.conditions[0].value',
      'must be [min, max] or "min,max"',
    ],
    [
      'condition date op with non-date',
      'condition_1',
      { conditions: [{ field: 'deal.closeDate', operator: 'date_before', value: 'tomorrow' }] },
      'nodes[2].data.conditions[0].value',
      'must be an ISO date',
    ],
    [
      'condition days not integer',
      'condition_1',
      { conditions: [{ field: 'deal.closeDate', operator: 'date_within_days', value: 1.5 }] },
      'nodes[2].data.conditions[0].value',
      'must be an integer number of days',
    ],
    [
      'condition length negative',
      'condition_1',
      { conditions: [{ field: 'lead.tags', operator: 'array_length_greater', value: -1 }] },
      'nodes[2].data.conditions[0].value',
      'must be a non-negative integer',
    ],
    [
      'condition regex with backreference',
      'condition_1',
      { conditions: [{ field: 'lead.email', operator: 'matches_regex', value: '(a)\\1' }] },
      'nodes[2].data.conditions[0].value',
      'backreferences are not supported',
    ],
    [
      'condition contains without value',
      'condition_1',
      { conditions: [{ field: 'lead.email', operator: 'contains' }] },
      'nodes[2].data.conditions[0].value',
      'is required for contains',
    ],
    [
      'condition bad dataType',
      'condition_1',
      { conditions: [{ field: 'lead.email', operator: 'equals', value: 'x', dataType: 'text' }] },
      'nodes[2].data.conditions[0].dataType',
      'must be one of string, number, boolean, date, array',
    ],
  ])('%s', (_name, id, data, path, error) => {
    const g = clone(validGraph());
    at(g, id).data = data as Record<string, unknown>;
    expect(errorsOf(g)).toEqual([{ path, error: expect.stringContaining(error) }]);
  });

  it.each([
    [
      'condition value placeholder',
      'condition_1',
      { conditions: [{ field: '{{deal.value}}', operator: 'greater_than', value: '{{lookup.lookup_1.value}}' }] },
    ],
    [
      'condition between as text',
      'condition_1',
      { conditions: [{ field: 'deal.value', operator: 'between', value: '100,500' }] },
    ],
    [
      'condition is_true without value',
      'condition_1',
      { conditions: [{ field: 'aiOutput.qualified', operator: 'is_true' }] },
    ],
    [
      'condition on ai_text',
      'condition_1',
      { conditions: [{ field: 'ai_text', operator: 'contains', value: 'yes' }], logic: 'or' },
    ],
    [
      'condition date with dataType date',
      'condition_1',
      { conditions: [{ field: 'deal.closeDate', operator: 'greater_than', value: '2024-01-01', dataType: 'date' }] },
    ],
    ['delay minutes', 'delay_1', { delayMinutes: 90 }],
    ['delay 365 days', 'delay_1', { amount: 365, unit: 'days' }],
    ['delay delayAmount/delayUnit (spec alias family)', 'delay_1', { delayAmount: 1, delayUnit: 'days' }],
    ['delay waitAmount/waitUnit', 'delay_1', { waitAmount: 2, waitUnit: 'hours' }],
    ['delay duration/unit', 'delay_1', { duration: 30, unit: 'minutes' }],
    ['delay waitDays/waitHours', 'delay_1', { waitDays: 1, waitHours: 12 }],
    [
      'ai json schema as text',
      'ai_1',
      {
        prompt: 'x',
        outputMode: 'json_schema',
        schema: '{"type":"object","properties":{"qualified":{"type":"boolean"}}}',
      },
    ],
    [
      'lookup custom object',
      'lookup_1',
      {
        entityType: 'CustomObjectRecord',
        customObjectId: 'obj_1',
        mode: 'all',
        sortField: 'updatedAt',
        sortOrder: 1,
        changeDetection: true,
        watchedFields: ['status'],
      },
    ],
  ])('accepts %s', (_name, id, data) => {
    const g = clone(validGraph());
    at(g, id).data = data as Record<string, unknown>;
    expect(errorsOf(g)).toEqual([]);
  });

  it('checks settings with the PUT bounds', () => {
    expect(
      errorsOf(validGraph(), { executionSettings: { retryMaxAttempts: 11 }, rateLimits: { maxRunsPerDay: -1 } }),
    ).toEqual([
      { path: 'executionSettings.retryMaxAttempts', error: 'must be at most 10' },
      { path: 'rateLimits.maxRunsPerDay', error: 'must be at least 0' },
    ]);
    expect(
      errorsOf(validGraph(), {
        executionSettings: { failureBehavior: 'retry', retryIntervalMinutes: 1440 },
        rateLimits: { maxTotalRuns: 0 },
      }),
    ).toEqual([]);
  });

  it('finds the node index in paths', () => {
    expect(idx(validGraph(), 'delay_1')).toBe(4);
  });
});

describe('validateAutomationGraph: action configs', () => {
  const valid: [string, Record<string, unknown>][] = [
    ['send_email', { subject: 'Hi {{contact.firstName}}', body: '<p>x</p>' }],
    ['send_email', { templateId: 'tpl_1' }],
    ['send_email', { subject: 's', body: 'b', recipientField: 'custom', to: 'a@b.dk' }],
    ['send_sms', { message: 'Hej' }],
    ['create_task', { title: 'Call' }],
    [
      'create_task',
      {
        title: 'Call',
        dateScheduleType: 'absolute',
        scheduledAt: '{{deal.closeDate}}',
        assignTo: 'placeholder',
        assignToPlaceholder: '{{owner._id}}',
      },
    ],
    ['create_recall', { title: 'Recall', delayDays: 3 }],
    ['create_note', { noteContent: 'x' }],
    ['create_activity', { description: 'Did a thing' }],
    [
      'update_record',
      {
        fieldUpdates: [
          { fieldKey: 'status', value: 'won' },
          { fieldKey: 'budget', value: null, isCustomField: true },
        ],
      },
    ],
    ['assign_user', { userId: 'u1' }],
    ['set_access', { accessState: { owner: 'u1', visibility: 'private', shares: [] } }],
    ['move_deal_stage', { stageId: 'stage_2' }],
    ['create_lead', { title: 'New lead' }],
    ['create_deal', { title: 'Deal', value: '{{webhookData.amount}}' }],
    ['create_contact', { firstName: 'Ann' }],
    ['create_offer', { title: 'Offer' }],
    ['create_record', {}],
    ['create_record', { recordType: 'custom_object', customObjectId: 'obj_1', fieldValues: { a: 1 } }],
    ['add_to_sequence', { sequenceId: 'seq_1', forceRestart: true }],
    [
      'http_request',
      {
        url: 'https://api.example.com/x?id={{lead._id}}',
        method: 'POST',
        headers: { 'x-key': 'k' },
        body: { a: '{{lead.email}}' },
        responseMapping: { id: 'data.id' },
      },
    ],
    ['http_request', { url: '{{webhookData.callbackUrl}}' }],
    ['send_webhook', { url: 'http://hooks.example.com/in', payload: { deal: '{{deal}}' } }],
    ['add_to_list', { listId: 'l1' }],
    ['remove_from_list', { listId: 'l1' }],
    ['accounting_create_customer', { system: 'books', mapping: { name: '{{company.name}}' }, contactCountryKey: 'SE' }],
    ['accounting_update_customer', { system: 'books', mapping: {} }],
    ['accounting_create_case', { system: 'books', mapping: {} }],
    ['accounting_create_order_confirmation', { system: 'books', mapping: {} }],
    [
      'accounting_create_invoice',
      { system: 'books', mapping: {}, lines: [{ description: 'Work', quantity: 2, unitPrice: 500 }] },
    ],
    ['accounting_book_invoice', { system: 'books', invoiceId: '{{httpResponse.data.invoiceId}}' }],
  ];
  it.each(valid)('accepts %s %j', (type, config) => {
    const r = run(action(type, config));
    expect(r.ok ? [] : r.errors).toEqual([]);
  });

  const C = 'nodes[1].data.config';
  const bad: [string, unknown, string, string][] = [
    [
      'create_note',
      { content: 'Hello' },
      `${C}.noteContent`,
      'is required (found "content": create_note reads noteContent, not content)',
    ],
    ['create_note', {}, `${C}.noteContent`, 'is required'],
    ['create_note', { noteContent: '   ' }, `${C}.noteContent`, 'is required'],
    [
      'create_task',
      { taskTitle: 'Call' },
      `${C}.title`,
      'is required (found "taskTitle": create_task reads title, not taskTitle)',
    ],
    ['create_task', { title: 'x', priority: 'urgent' }, `${C}.priority`, 'must be one of low, medium, high'],
    [
      'create_task',
      { title: 'x', dateScheduleType: 'absolute' },
      `${C}.scheduledAt`,
      'is required when dateScheduleType is absolute',
    ],
    ['create_task', { title: 'x', assignTo: 'placeholder' }, `${C}.assignToPlaceholder`, 'must be a {{placeholder}}'],
    ['create_task', { title: 'x', durationMinutes: 2 }, `${C}.durationMinutes`, 'must be at least 5'],
    [
      'create_task',
      { title: 'x', conflictPolicy: 'overwrite' },
      `${C}.conflictPolicy`,
      'must be one of find_next, skip, create_anyway',
    ],
    ['send_email', { body: 'b' }, `${C}.subject`, 'is required unless templateId is set'],
    ['send_email', { subject: 's' }, `${C}.body`, 'is required unless templateId is set'],
    [
      'send_email',
      { templateId: 't', recipientField: 'custom' },
      `${C}.to`,
      'is required when recipientField is custom',
    ],
    [
      'send_email',
      { templateId: 't', recipientField: 'home' },
      `${C}.recipientField`,
      'must be one of primary, secondary',
    ],
    [
      'send_email',
      { subject: 's', body: 'b', emailMode: 'template' },
      `${C}.templateId`,
      'is required with emailMode template',
    ],
    ['send_sms', { body: 'Hej' }, `${C}.message`, 'is required (found "body": send_sms reads message, not body)'],
    ['send_sms', { message: 'x', phoneField: 'fax' }, `${C}.phoneField`, 'must be one of primary, mobile'],
    ['create_recall', { title: 'x', delayDays: -1 }, `${C}.delayDays`, 'must be at least 0'],
    ['create_activity', { activityType: 'call' }, `${C}.description`, 'is required'],
    ['update_record', {}, `${C}.fieldUpdates`, 'is required'],
    ['update_record', { fieldUpdates: [] }, `${C}.fieldUpdates`, 'must not be empty'],
    [
      'update_record',
      { fieldPath: 'status', value: 'x' },
      `${C}.fieldUpdates`,
      'is required (found "fieldPath": update_record reads fieldUpdates, not fieldPath)',
    ],
    [
      'update_record',
      { fieldUpdates: [{ fieldPath: 'status', value: 'won' }] },
      `${C}.fieldUpdates[0].fieldKey`,
      'is required (found "fieldPath": update_record reads fieldKey, not fieldPath)',
    ],
    ['update_record', { fieldUpdates: [{ fieldKey: 'status' }] }, `${C}.fieldUpdates[0].value`, 'is required'],
    [
      'update_record',
      { recordType: 'invoice', fieldUpdates: [{ fieldKey: 'a', value: 1 }] },
      `${C}.recordType`,
      'must be one of lead, person, company, deal, custom_object',
    ],
    ['assign_user', {}, `${C}.userId`, 'userId or groupId is required'],
    ['set_access', {}, `${C}.accessState`, 'is required'],
    ['set_access', { accessState: 'private' }, `${C}.accessState`, 'must be an object'],
    ['move_deal_stage', { dealId: 'd1' }, `${C}.stageId`, 'is required'],
    ['create_lead', { email: 'a@b.dk' }, `${C}.title`, 'is required'],
    ['create_deal', { title: 'x', value: 'lots' }, `${C}.value`, 'must be a number or a {{placeholder}}'],
    ['create_deal', { title: 'x', value: -5 }, `${C}.value`, 'must be at least 0'],
    ['create_contact', { lastName: 'x' }, `${C}.firstName`, 'is required'],
    ['create_offer', { templateId: 't' }, `${C}.title`, 'is required'],
    [
      'create_record',
      { recordType: 'custom_object' },
      `${C}.customObjectId`,
      'is required when recordType is custom_object',
    ],
    ['create_record', { fieldValues: [] }, `${C}.fieldValues`, 'must be an object'],
    ['create_record', { customFields: [{ value: 1 }] }, `${C}.customFields[0].name`, 'is required'],
    ['add_to_sequence', {}, `${C}.sequenceId`, 'is required'],
    ['add_to_sequence', { sequenceId: 's', forceRestart: 'yes' }, `${C}.forceRestart`, 'must be true or false'],
    ['http_request', {}, `${C}.url`, 'is required'],
    ['http_request', { url: 'ftp://example.com/x' }, `${C}.url`, 'must be an http:// or https:// URL'],
    ['http_request', { url: 'https://' }, `${C}.url`, 'must be an http:// or https:// URL'],
    [
      'http_request',
      { url: 'https://example.com', method: 'HEAD' },
      `${C}.method`,
      'must be one of GET, POST, PUT, PATCH, DELETE',
    ],
    ['http_request', { url: 'https://example.com', headers: { a: 1 } }, `${C}.headers.a`, 'must be a string'],
    ['send_webhook', { payload: {} }, `${C}.url`, 'is required'],
    ['send_webhook', { url: 'example.com/hook' }, `${C}.url`, 'must be an http:// or https:// URL'],
    ['add_to_list', {}, `${C}.listId`, 'is required'],
    ['remove_from_list', { listId: '' }, `${C}.listId`, 'is required'],
    ['accounting_create_invoice', { mapping: {} }, `${C}.system`, 'is required'],
    ['accounting_create_case', { system: 'books' }, `${C}.mapping`, 'is required'],
    [
      'accounting_create_customer',
      { system: 'Books!', mapping: {} },
      `${C}.system`,
      'must be a lowercase system identifier',
    ],
    [
      'accounting_create_customer',
      { system: 'b', mapping: {}, contactCountryKey: 'Denmark' },
      `${C}.contactCountryKey`,
      'must be an ISO 3166-1 alpha-2 code',
    ],
    [
      'accounting_create_invoice',
      { system: 'b', mapping: {}, lines: [{ quantity: 1, unitPrice: 1 }] },
      `${C}.lines[0].description`,
      'is required',
    ],
    ['accounting_book_invoice', { system: 'b' }, `${C}.invoiceId`, 'is required'],
  ];
  it.each(bad)('refuses %s %j', (type, config, path, error) => {
    expect(errorsOf(action(type, config))).toContainEqual({ path, error: expect.stringContaining(error) });
  });

  it.each([
    ['', 'nodes[1].data.actionType', 'is required'],
    ['delete_record', 'nodes[1].data.actionType', 'unknown action type "delete_record"'],
    ['remove_from_sequence', 'nodes[1].data.actionType', 'unknown action type "remove_from_sequence"'],
  ])('refuses action type %j', (type, path, error) => {
    expect(errorsOf(action(type, {}))).toEqual([{ path, error }]);
  });

  it('refuses a config that is not an object', () => {
    expect(errorsOf(action('create_note', ['x']))).toEqual([
      { path: 'nodes[1].data.config', error: 'must be an object' },
    ]);
  });

  it('warns about deprecated actions and placeholders that can never resolve', () => {
    const r = run(action('create_lead', { title: 'Hi {{firstName}} from {{foo.bar}}', email: '{{lead.email}}' }));
    expect(r.ok).toBe(true);
    expect(r.warnings).toEqual([
      { path: 'nodes[1].data.actionType', error: 'create_lead is deprecated; use create_record with recordType lead' },
      {
        path: 'nodes[1].data.config.title',
        error: expect.stringContaining('{{firstName}} has no namespace and renders empty'),
      },
      {
        path: 'nodes[1].data.config.title',
        error: expect.stringContaining('{{foo.bar}} uses unknown namespace "foo"'),
      },
    ]);
  });
});
