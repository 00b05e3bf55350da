import { z } from 'zod';
import { defineEvents, recordEvents, recordView } from '../../platform/outbox/define-events';

const call = z.object({ call: recordView });

/** Call events; a call reaching `completed` or `answered` also emits that status's event. */
export const callEvents = defineEvents({
  ...recordEvents('call', call),
  call_completed: call,
  call_answered: call,
});
export type CallEventName = keyof typeof callEvents;

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof callEvents> {}
}
