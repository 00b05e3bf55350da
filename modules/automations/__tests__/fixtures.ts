import type { GraphEdge, GraphNode } from '../graph';

export interface TestGraph {
  nodes: (GraphNode & { position: { x: number; y: number } })[];
  edges: GraphEdge[];
}

let row = 0;
export const node = (id: string, type: string, data: Record<string, unknown>) => ({
  id,
  type,
  position: { x: 500, y: 200 * row++ },
  data,
});
export const edge = (id: string, source: string, target: string, sourceHandle: string | null = null): GraphEdge => ({
  id,
  source,
  target,
  sourceHandle,
});

/** A valid graph using every node type and every branch handle kind. */
export function validGraph(): TestGraph {
  return {
    nodes: [
      node('trigger_1', 'trigger', { triggerType: 'deal_stage_changed', config: { stageId: 'stage_won' } }),
      node('lookup_1', 'lookup', {
        label: 'Open deals',
        entityType: 'Deal',
        mode: 'first',
        filters: [{ field: 'companyId', operator: 'equals', value: '{{deal.companyId}}' }],
      }),
      node('condition_1', 'condition', {
        conditions: [{ id: 'c1', field: 'deal.value', operator: 'greater_than', value: 1000 }],
        logic: 'and',
      }),
      node('ai_1', 'ai', { prompt: 'Summarise {{deal.title}}', outputMode: 'text' }),
      node('delay_1', 'delay', { amount: 2, unit: 'hours' }),
      node('action_note', 'action', {
        actionType: 'create_note',
        config: { noteContent: 'Deal {{deal.title}} moved' },
      }),
      node('action_task', 'action', { actionType: 'create_task', config: { title: 'Call {{contact.firstName}}' } }),
      node('action_email', 'action', {
        actionType: 'send_email',
        config: { subject: 'Hi', body: '<p>{{ai_text}}</p>' },
      }),
    ],
    edges: [
      edge('e1', 'trigger_1', 'lookup_1'),
      edge('e2', 'lookup_1', 'condition_1', 'found'),
      edge('e3', 'lookup_1', 'action_note', 'empty'),
      edge('e4', 'condition_1', 'ai_1', 'true'),
      edge('e5', 'condition_1', 'delay_1', 'false'),
      edge('e6', 'ai_1', 'action_email'),
      edge('e7', 'delay_1', 'action_task'),
    ],
  };
}

export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
