import { z } from 'zod';
import { defineEvents } from '../../platform/outbox/define-events';

/** The workspace switched its browser-extension contribution on or off (entity `workspace`). */
export const extensionEvents = defineEvents({
  extension_contribution_changed: z.object({ enabled: z.boolean() }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof extensionEvents> {}
}
