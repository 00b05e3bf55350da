import { ACTION_CONFIG_SCHEMAS } from '../action-config.schemas';
import {
  ACTION_TYPES,
  CONDITION_OPERATORS,
  DEPRECATED_ACTIONS,
  LEGACY_TRIGGERS,
  LOOKUP_ENTITY_TYPES,
  TRIGGER_TYPES,
  automationCreateBody,
  automationUpdateBody,
} from '../definition.schemas';
import { validGraph } from './fixtures';

const issues = (schema: typeof automationCreateBody | typeof automationUpdateBody, body: unknown) => {
  const r = schema.safeParse(body);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};

describe('vocabularies', () => {
  it('lists every trigger, action, lookup entity and operator of the spec', () => {
    // The spec's 65 triggers plus the six sequence enrollment events (sequence_enrolled, …) and the three
    // envelope changes of issue 28 (contract_signer_corrected, contract_invitation_resent, contract_extended) and its
    // approval notices (booking_approval_requested, booking_approval_reminder).
    expect(TRIGGER_TYPES).toHaveLength(76);
    expect(new Set(TRIGGER_TYPES).size).toBe(TRIGGER_TYPES.length);
    expect(ACTION_TYPES).toHaveLength(26);
    expect(LOOKUP_ENTITY_TYPES).toHaveLength(11);
    expect(CONDITION_OPERATORS).toHaveLength(26);
    for (const t of LEGACY_TRIGGERS) expect(TRIGGER_TYPES).toContain(t);
    for (const a of DEPRECATED_ACTIONS) expect(ACTION_TYPES).toContain(a);
    for (const a of ACTION_TYPES) expect(ACTION_CONFIG_SCHEMAS[a]).toBeDefined();
  });

  it('fills the spec defaults when an activity parses a config', () => {
    expect(ACTION_CONFIG_SCHEMAS.create_task.parse({ title: 'Call' })).toEqual({
      title: 'Call',
      activityType: 'meeting',
      priority: 'medium',
      dateScheduleType: 'relative',
      dueInDays: 1,
      durationMinutes: 30,
      assignTo: 'owner',
      conflictPolicy: 'find_next',
    });
    expect(ACTION_CONFIG_SCHEMAS.send_email.parse({ templateId: 't' })).toEqual({
      templateId: 't',
      recipientField: 'primary',
      recipientType: 'auto',
    });
    expect(ACTION_CONFIG_SCHEMAS.http_request.parse({ url: 'https://x.dk' })).toEqual({
      url: 'https://x.dk',
      method: 'GET',
    });
    expect(ACTION_CONFIG_SCHEMAS.add_to_sequence.parse({ sequenceId: 's' })).toEqual({
      sequenceId: 's',
      entityType: 'trigger',
      forceRestart: false,
    });
    expect(ACTION_CONFIG_SCHEMAS.create_record.parse({})).toEqual({
      recordType: 'lead',
      fieldValues: {},
      customFields: [],
    });
    expect(ACTION_CONFIG_SCHEMAS.accounting_create_customer.parse({ system: 'books', mapping: {} })).toEqual({
      system: 'books',
      mapping: {},
      contactCountryKey: 'DK',
    });
  });
});

describe('automationCreateBody', () => {
  it('applies defaults and drops canvas-only keys', () => {
    const g = validGraph();
    const parsed = automationCreateBody.parse({
      name: '  Won deals  ',
      nodes: g.nodes.map((n) => ({ ...n, width: 280, selected: true })),
      edges: g.edges.map((e) => ({ ...e, animated: true })),
      isActive: true,
    });
    expect(parsed.name).toBe('Won deals');
    expect(parsed.executionSettings).toEqual({ failureBehavior: 'stop', retryMaxAttempts: 3, retryIntervalMinutes: 5 });
    expect(parsed.rateLimits).toEqual({ maxRunsPerHour: 0, maxRunsPerDay: 0, maxRunsPerWeek: 0, maxTotalRuns: 0 });
    expect(parsed.nodes[0]).toEqual(g.nodes[0]);
    expect('animated' in parsed.edges[0]!).toBe(false);
    expect('isActive' in parsed).toBe(false);
    expect(automationCreateBody.parse({ name: 'Draft' })).toMatchObject({ nodes: [], edges: [] });
  });

  const node = { id: 'n1', type: 'action', position: { x: 0, y: 0 }, data: {} };
  it.each([
    [{}, 'name', 'is required'],
    [{ name: '   ' }, 'name', 'is required'],
    [{ name: 'x'.repeat(201) }, 'name', 'must be at most 200 characters'],
    [{ name: 'a', description: 'x'.repeat(2001) }, 'description', 'must be at most 2000 characters'],
    [{ name: 'a', nodes: {} }, 'nodes', 'must be an array'],
    [
      { name: 'a', nodes: Array.from({ length: 201 }, (_, i) => ({ ...node, id: `n${i}` })) },
      'nodes',
      'at most 200 nodes',
    ],
    [
      { name: 'a', edges: Array.from({ length: 401 }, (_, i) => ({ id: `e${i}`, source: 'a', target: 'b' })) },
      'edges',
      'at most 400 edges',
    ],
    [
      { name: 'a', nodes: [{ ...node, id: 'lookup.1' }] },
      'nodes.0.id',
      'must be 1-100 characters without spaces, dots, braces or |',
    ],
    [
      { name: 'a', nodes: [{ ...node, id: '' }] },
      'nodes.0.id',
      'must be 1-100 characters without spaces, dots, braces or |',
    ],
    [
      { name: 'a', nodes: [{ ...node, type: 'merge' }] },
      'nodes.0.type',
      'must be one of trigger, action, condition, delay, ai, lookup',
    ],
    [{ name: 'a', nodes: [{ ...node, position: undefined }] }, 'nodes.0.position', 'is required'],
    [{ name: 'a', nodes: [{ ...node, position: { x: '1', y: 0 } }] }, 'nodes.0.position.x', 'must be a number'],
    [{ name: 'a', nodes: [{ ...node, data: [] }] }, 'nodes.0.data', 'must be an object'],
    [{ name: 'a', edges: [{ id: 'e', source: 'a' }] }, 'edges.0.target', 'is required'],
    [
      { name: 'a', edges: [{ id: 'e', source: 'a', target: 'b', sourceHandle: 1 }] },
      'edges.0.sourceHandle',
      'must be a string',
    ],
    [
      { name: 'a', executionSettings: { failureBehavior: 'skip' } },
      'executionSettings.failureBehavior',
      'must be one of stop, continue, retry',
    ],
    [
      { name: 'a', executionSettings: { retryMaxAttempts: 0 } },
      'executionSettings.retryMaxAttempts',
      'must be at least 1',
    ],
    [
      { name: 'a', executionSettings: { retryMaxAttempts: 11 } },
      'executionSettings.retryMaxAttempts',
      'must be at most 10',
    ],
    [
      { name: 'a', executionSettings: { retryMaxAttempts: 2.5 } },
      'executionSettings.retryMaxAttempts',
      'must be an integer',
    ],
    [
      { name: 'a', executionSettings: { retryIntervalMinutes: 1441 } },
      'executionSettings.retryIntervalMinutes',
      'must be at most 1440',
    ],
    [
      { name: 'a', executionSettings: { retryIntervalMinutes: 0 } },
      'executionSettings.retryIntervalMinutes',
      'must be at least 1',
    ],
    [{ name: 'a', executionSettings: { retries: 3 } }, 'executionSettings', 'unknown field(s): retries'],
    [{ name: 'a', rateLimits: { maxRunsPerHour: -1 } }, 'rateLimits.maxRunsPerHour', 'must be at least 0'],
    [{ name: 'a', rateLimits: { maxTotalRuns: 1.5 } }, 'rateLimits.maxTotalRuns', 'must be an integer'],
    [{ name: 'a', rateLimits: { maxRunsPerWeek: '5' } }, 'rateLimits.maxRunsPerWeek', 'must be a number'],
    [{ name: 'a', rateLimits: { maxRunsPerMonth: 5 } }, 'rateLimits', 'unknown field(s): maxRunsPerMonth'],
  ])('refuses %j at %s', (body, path, message) => {
    expect(issues(automationCreateBody, body)).toContainEqual({ path, message });
  });
});

describe('automationUpdateBody', () => {
  it('keeps only the keys sent (settings merge over the stored ones)', () => {
    expect(automationUpdateBody.parse({ executionSettings: { retryMaxAttempts: 5 }, rateLimits: {} })).toEqual({
      executionSettings: { retryMaxAttempts: 5 },
      rateLimits: {},
    });
    expect(automationUpdateBody.parse({ description: '' })).toEqual({ description: null });
    expect(automationUpdateBody.parse({})).toEqual({});
  });

  it.each([
    [{ name: '' }, 'name', 'is required'],
    [
      { executionSettings: { failureBehavior: 'explode' } },
      'executionSettings.failureBehavior',
      'must be one of stop, continue, retry',
    ],
    [{ rateLimits: { maxRunsPerDay: -3 } }, 'rateLimits.maxRunsPerDay', 'must be at least 0'],
  ])('refuses %j', (body, path, message) => {
    expect(issues(automationUpdateBody, body)).toContainEqual({ path, message });
  });
});
