/**
 * The sequences module's public surface: what code outside modules/sequences may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`, `*.kind.ts`,
 * `*.messages.ts`, `*.workflow.ts`) are read by the registries directly; tests and benches may reach inside.
 */
export { sequenceWorkflowPort, type SequenceEngineDeps, type SequenceWorkflowPort } from './ports';
export { createSequenceWorkflowPort } from './sequence-client';
export { enrollmentStartQueue } from './start-queue';
export { reconcileEnrollments } from './reconcile';
export { enrollEntities } from './enroll.service';
export { sequenceEnroller } from './automation-enroller';
export type { EnrollEntityType } from './definition.schemas';
