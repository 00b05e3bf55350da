// An automation graph with no imports: the SDK scenario (sdk-scenario.ts), which uses nothing but the
// generated client, and the tests' own definitions (automations.ts) build the same one.

/** A record_created trigger for `entityType` → create_note with `noteContent`. */
export const noteOnCreateGraph = (entityType: string, noteContent: string) => ({
  nodes: [
    {
      id: 'trigger_1',
      type: 'trigger' as const,
      position: { x: 500, y: 0 },
      data: { triggerType: 'record_created', config: { entityTypes: [entityType] } },
    },
    {
      id: 'action_1',
      type: 'action' as const,
      position: { x: 500, y: 200 },
      data: { actionType: 'create_note', config: { noteContent } },
    },
  ],
  edges: [{ id: 'e1', source: 'trigger_1', target: 'action_1', sourceHandle: null }],
});
