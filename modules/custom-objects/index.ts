/**
 * The custom-objects module's public surface: what code outside modules/custom-objects may import
 * (dependency-cruiser `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`)
 * are read by the registries directly; tests and benches may reach inside.
 */
export { CustomObject, CustomObjectField, CustomObjectRecord } from './custom-object.entity';
export { automationRecordView, findObjectByIdOrSlug, loadRecordForAutomation } from './automation-view';
export { createRecordOf, previewRecordOf, updateRecordOf } from './records.service';
