/**
 * The extension module's public surface: what code outside modules/extension may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.events.ts`) are read by the registries directly;
 * tests and benches may reach inside.
 */
export { ExtensionContribution, ExtensionObservation } from './extension.entity';
export type { CaptureUploadsView } from './extension.views';
