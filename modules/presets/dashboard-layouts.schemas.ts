import { z } from 'zod';
import { boundedJson, jsonView, recordView, sharedItemBodies, sharingView } from './sharing.schemas';

export const LAYOUT_JSON_MAX_BYTES = 64 * 1024;

const layoutBodies = sharedItemBodies({
  layout: boundedJson(LAYOUT_JSON_MAX_BYTES),
  visibleComponents: z
    .array(z.string().trim().min(1, 'must not be empty').max(100, 'each component must be at most 100 characters'))
    .max(100, 'at most 100 components'),
  chartWidgets: boundedJson(LAYOUT_JSON_MAX_BYTES),
});
export const createDashboardLayoutBody = layoutBodies.create;
export const updateDashboardLayoutBody = layoutBodies.update;

export const dashboardLayoutView = z.object({
  ...recordView,
  name: z.string(),
  layout: jsonView,
  visibleComponents: z.array(z.string()),
  chartWidgets: jsonView,
  ...sharingView,
});

/** What the service writes: the parsed updateDashboardLayoutBody (create bodies add their required fields). */
export type DashboardLayoutInput = z.infer<typeof updateDashboardLayoutBody>;
