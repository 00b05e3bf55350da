import { z } from 'zod';
import { defineEvents, recordEvents, recordView } from '../../platform/outbox/define-events';

/** AI agents (the configuration records, not the agent_* automation triggers, which nothing emits yet). */
export const agentEvents = defineEvents({
  ...recordEvents('agent', z.object({ agent: recordView })),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof agentEvents> {}
}
