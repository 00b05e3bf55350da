import { z } from 'zod';
import { requiredText } from '../../platform/shared/schemas';
import { boundedJson, recordView, sharingFields, sharingView } from './sharing.schemas';

export const LAYOUT_JSON_MAX_BYTES = 64 * 1024;

const layoutFields = {
  layout: boundedJson(LAYOUT_JSON_MAX_BYTES),
  visibleComponents: z
    .array(z.string().trim().min(1, 'must not be empty').max(100, 'each component must be at most 100 characters'))
    .max(100, 'at most 100 components'),
  chartWidgets: boundedJson(LAYOUT_JSON_MAX_BYTES),
  ...sharingFields,
};

export const createDashboardLayoutBody = z
  .object({ name: requiredText(200) })
  .extend(z.object(layoutFields).partial().shape);
export const updateDashboardLayoutBody = z.object({ name: requiredText(200), ...layoutFields }).partial();

const jsonValue = z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).nullable();

export const dashboardLayoutView = z.object({
  ...recordView,
  name: z.string(),
  layout: jsonValue,
  visibleComponents: z.array(z.string()),
  chartWidgets: jsonValue,
  ...sharingView,
});

/** What the service writes: the parsed updateDashboardLayoutBody (create bodies add their required fields). */
export type DashboardLayoutInput = z.infer<typeof updateDashboardLayoutBody>;
