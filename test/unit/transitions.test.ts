import { markdownReference } from '../../api/docs/markdown';
import { openApiDocument } from '../../api/docs/openapi';
import { docsQuery, resolveDocs } from '../../api/docs/resolve';
import { route } from '../../platform/http/registry';
import { dealStatusTransitions } from '../../modules/deals/deals.rules';
import { DomainError } from '../../platform/errors';
import { defineTransitions, transitionsDoc } from '../../platform/shared/transitions';

type Run = 'running' | 'completed' | 'failed' | 'cancelled';
const run = defineTransitions<Run>({
  resource: 'execution',
  field: 'status',
  states: ['running', 'completed', 'failed', 'cancelled'],
  transitions: { running: ['completed', 'failed', 'cancelled'], completed: [], failed: [], cancelled: [] },
});

function caught(fn: () => void): DomainError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a DomainError');
}

describe('defineTransitions', () => {
  it.each([
    ['running', 'completed', true],
    ['running', 'running', true],
    ['completed', 'completed', true],
    ['completed', 'running', false],
    ['failed', 'cancelled', false],
  ] as const)('%s → %s allowed: %s', (from, to, allowed) => {
    expect(run.can(from, to)).toBe(allowed);
  });

  it('refuses with 409 invalid_state naming the current state and what it may become', () => {
    const err = caught(() => run.assert('completed', 'running'));
    expect(err.code).toBe('invalid_state');
    expect(err.message).toBe('status: the execution is completed; it cannot become running (completed is final)');
    expect(err.details).toEqual({ current: 'completed', requested: 'running', allowed: [] });
    expect(() => run.assert('running', 'failed')).not.toThrow();
  });

  it('lists terminal states and one doc row per state', () => {
    expect(run.terminal()).toEqual(['completed', 'failed', 'cancelled']);
    expect(transitionsDoc(run).transitions[0]).toEqual({ from: 'running', to: ['completed', 'failed', 'cancelled'] });
  });

  it('a requirement that does not hold closes every way out of that state', () => {
    expect(dealStatusTransitions.can('won', 'open', { requirementMet: true })).toBe(true);
    expect(dealStatusTransitions.can('won', 'open', { requirementMet: false })).toBe(false);
    expect(dealStatusTransitions.can('won', 'won', { requirementMet: false })).toBe(true);
    const err = caught(() => dealStatusTransitions.assert('lost', 'open', { requirementMet: false }));
    expect(err.message).toBe('status: the deal is lost; it cannot become open unless the deal sits in an open stage');
    expect(err.details).toEqual({ current: 'lost', requested: 'open', allowed: [] });
  });

  it('refuses a table that names an unknown state', () => {
    expect(() =>
      defineTransitions<'a' | 'b'>({
        resource: 'x',
        field: 'status',
        states: ['a'] as never,
        transitions: { a: ['b'], b: [] },
      }),
    ).toThrow(/unknown state/);
  });
});

describe('transition tables in the docs', () => {
  const routes = [
    route({
      method: 'PUT',
      path: '/api/v1/deals/:id',
      section: 'Deals',
      summary: 'Update a deal.',
      access: { scopes: ['write'] },
      transitions: [dealStatusTransitions],
      handler: async () => ({ status: 200, body: {} }),
    }),
    route({
      method: 'GET',
      path: '/api/v1/deals',
      section: 'Deals',
      summary: 'List deals.',
      access: { scopes: ['read'] },
      handler: async () => ({ status: 200, body: {} }),
    }),
  ];
  const limits = { rateLimitPerMinute: 1, rateLimitPerDay: 1, bodyLimitBytes: 1 };

  it("section=<name> lists the section's tables; the endpoint that enforces one carries it", () => {
    const out = resolveDocs(routes, docsQuery.parse({ section: 'deals' }), limits);
    if (out.kind !== 'json') throw new Error('expected json');
    const data = (
      out.body as {
        data: {
          stateMachines: { resource: string; transitions: { from: string; to: string[] }[] }[];
          endpoints: { stateMachines?: unknown[] }[];
        };
      }
    ).data;
    expect(data.stateMachines).toHaveLength(1);
    expect(data.stateMachines[0]).toMatchObject({ resource: 'deal', field: 'status' });
    expect(data.stateMachines[0]!.transitions).toContainEqual({
      from: 'won',
      to: ['open', 'lost'],
      requires: 'the deal sits in an open stage',
    });
    expect(data.endpoints[0]!.stateMachines).toHaveLength(1);
    expect(data.endpoints[1]!.stateMachines).toBeUndefined();
  });

  it('Markdown and OpenAPI show the table', () => {
    expect(markdownReference(routes)).toContain('| `won` | `open`, `lost` | the deal sits in an open stage |');
    const doc = openApiDocument(routes) as {
      paths: Record<string, Record<string, { description: string; 'x-state-machines'?: unknown[] }>>;
    };
    const put = doc.paths['/api/v1/deals/{id}']!.put!;
    expect(put.description).toContain('deal status transitions');
    expect(put['x-state-machines']).toHaveLength(1);
  });
});

describe('execution status table', () => {
  it('matches the statuses the API lists, and only queued and running are left by the SQL guards', async () => {
    const { executionStatusTransitions, FINISHABLE_FROM } = await import('../../modules/automations/automations.rules');
    const { EXECUTION_STATUSES } = await import('../../modules/automations/automations-read.service');
    expect([...executionStatusTransitions.states].sort()).toEqual([...EXECUTION_STATUSES].sort());
    expect(FINISHABLE_FROM).toEqual(['queued', 'running']);
    expect(executionStatusTransitions.terminal()).toEqual(['completed', 'failed', 'cancelled']);
  });
});
