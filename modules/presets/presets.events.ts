import { z } from 'zod';
import { defineEvents, openObject, recordEvents } from '../../platform/outbox/define-events';

const layout = z.object({ dashboardLayout: openObject });
const preset = z.object({ filterPreset: openObject });

/** Saved dashboard layouts and filter presets. */
export const presetEvents = defineEvents({
  ...recordEvents('dashboard_layout', layout),
  ...recordEvents('filter_preset', preset),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof presetEvents> {}
}
