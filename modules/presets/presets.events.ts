import { z } from 'zod';
import { defineEvents, fieldChanges, openObject } from '../../platform/outbox/define-events';

const layout = z.object({ dashboardLayout: openObject });
const preset = z.object({ filterPreset: openObject });

/** Saved dashboard layouts and filter presets. */
export const presetEvents = defineEvents({
  dashboard_layout_created: layout,
  dashboard_layout_updated: layout.extend({ changes: fieldChanges }),
  dashboard_layout_deleted: layout,
  filter_preset_created: preset,
  filter_preset_updated: preset.extend({ changes: fieldChanges }),
  filter_preset_deleted: preset,
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof presetEvents> {}
}
