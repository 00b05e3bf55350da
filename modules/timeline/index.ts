/**
 * The timeline module's public surface: what code outside modules/timeline may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside. The timeline imports no record module: the record
 * services write its rows, and its reference checks name their entities by ORM name.
 */
export { Activity } from './activity.entity';
export { createActivity } from './entries.service';
export {
  createLinkedActivity,
  removeLinkedActivities,
  syncLinkedActivity,
  type LinkedActivity,
  type LinkedRef,
} from './linked';
export { resolveParentRef } from './parent-refs';
export { emitRecordCreated, emitRecordUpdated, type FeedEntry } from './record-changes';
export { NOTE_PARENT_FIELDS, parentEntityType, TASK_PARENT_FIELDS } from './parents';
export {
  assertRecordLinks,
  assertRefs,
  assertUsers,
  linkColumns,
  type RecordLinks,
  type RefCheck,
  type RefKind,
} from './references';
export { activityView, type ActivityView } from './timeline.schemas';
export {
  listTimeline,
  recordSystemActivity,
  serializeActivity,
  type SystemActivityType,
  type TimelineLink,
} from './timeline.service';
export { childListRoute, timelineRoutes } from './sub-lists';
