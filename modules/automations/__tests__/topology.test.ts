import { outgoingEdges, successors, topology, walkGraph, type NodeOutcome } from '../graph';
import { findCycle, reachableFrom } from '../topology.pure';
import { edge, node, validGraph } from './fixtures';

describe('topology', () => {
  it('orders parents before children, ties in nodes order', () => {
    const t = topology(validGraph());
    expect(t.triggerId).toBe('trigger_1');
    expect(t.order).toEqual([
      'trigger_1',
      'lookup_1',
      'condition_1',
      'ai_1',
      'delay_1',
      'action_note',
      'action_task',
      'action_email',
    ]);
    expect(t.cyclic).toEqual([]);
  });

  it('keeps nodes behind a cycle out of the order', () => {
    const g = validGraph();
    const t = topology({ nodes: g.nodes, edges: [...g.edges, edge('back', 'action_task', 'delay_1')] });
    expect(t.cyclic).toEqual(['delay_1', 'action_task']);
    expect(
      findCycle(
        t,
        g.nodes.map((n) => n.id),
      )!.map((e) => e.id),
    ).toEqual(['e7', 'back']);
  });

  it('ignores edges to unknown nodes', () => {
    const t = topology({ nodes: [node('a', 'trigger', {})], edges: [edge('x', 'a', 'ghost')] });
    expect(t.outgoing('a')).toEqual([]);
  });

  it('computes reachability', () => {
    const g = validGraph();
    g.nodes.push(node('orphan', 'delay', {}));
    expect([...reachableFrom(topology(g), 'condition_1')].sort()).toEqual([
      'action_email',
      'action_task',
      'ai_1',
      'condition_1',
      'delay_1',
    ]);
  });
});

describe('successors', () => {
  const g = validGraph();
  g.nodes.push(node('ai_branch', 'ai', {}), node('yes', 'delay', {}), node('always', 'delay', {}));
  g.edges.push(
    edge('a1', 'ai_branch', 'yes', 'true'),
    edge('a2', 'ai_branch', 'always'),
    edge('a3', 'ai_branch', 'always', 'false'),
  );

  it.each([
    ['trigger_1', null, ['lookup_1']],
    ['lookup_1', 'found', ['condition_1']],
    ['lookup_1', 'empty', ['action_note']],
    ['lookup_1', 'error', []],
    ['lookup_1', null, []],
    ['condition_1', 'true', ['ai_1']],
    ['condition_1', 'false', ['delay_1']],
    ['ai_branch', 'true', ['yes', 'always']],
    ['ai_branch', 'false', ['always']],
    ['ai_branch', null, ['always']],
    ['action_email', null, []],
  ] as const)('%s via %s → %j', (id, handle, expected) => {
    expect(successors(g, id, handle)).toEqual(expected);
    expect(successors(topology(g), id, handle)).toEqual(expected);
  });

  it('returns the taken edges', () => {
    expect(outgoingEdges(topology(g), 'condition_1', 'true').map((e) => e.id)).toEqual(['e4']);
  });
});

describe('walkGraph', () => {
  const outcomes: Record<string, NodeOutcome> = {
    trigger_1: { handle: null },
    lookup_1: { handle: 'found' },
    condition_1: { handle: 'false' },
    delay_1: { handle: null },
    action_task: { handle: null },
  };

  it('runs the taken branch only, in order', async () => {
    const seen: string[] = [];
    const res = await walkGraph(
      topology(validGraph()),
      async (n) => (seen.push(n.id), outcomes[n.id] ?? { handle: null }),
    );
    expect(res).toEqual({ ran: ['trigger_1', 'lookup_1', 'condition_1', 'delay_1', 'action_task'], stopped: false });
    expect(seen).toEqual(res.ran);
  });

  it('stops when a node says stop', async () => {
    const res = await walkGraph(topology(validGraph()), async (n) =>
      n.id === 'condition_1' ? { stop: true } : (outcomes[n.id] ?? { handle: null }),
    );
    expect(res).toEqual({ ran: ['trigger_1', 'lookup_1', 'condition_1'], stopped: true });
  });

  it('runs a node where branches meet once, after both branches', async () => {
    const g = {
      nodes: [node('t', 'trigger', {}), node('a', 'action', {}), node('b', 'action', {}), node('join', 'action', {})],
      edges: [edge('1', 't', 'a'), edge('2', 't', 'b'), edge('3', 'a', 'join'), edge('4', 'b', 'join')],
    };
    const res = await walkGraph(topology(g), async () => ({ handle: null }));
    expect(res.ran).toEqual(['t', 'a', 'b', 'join']);
  });
});
