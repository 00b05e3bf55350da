/**
 * The contracts module's public surface: what code outside modules/contracts may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`, `*.kind.ts`,
 * `*.messages.ts`, `*.workflow.ts`) are read by the registries directly; tests and benches may reach inside.
 */
export { eidProviderFromConfig, type EidProvider } from './eid';
export { contractStartQueue } from './start-queue';
