/**
 * The projects module's public surface: what code outside modules/projects may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside.
 */
export { Project } from './project.entity';
export { entryHours } from './project-rules';
export {
  timeEntryDetails,
  timeEntryHours,
  timeEntryMinutes,
  timeEntryProps,
  timeEntryViewFields,
} from './time-entry-fields';
