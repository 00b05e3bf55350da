/**
 * Every resource kind, from the modules' `resources` in MODULES order (docs/modules.md). platform/ reads the list
 * at run time from its registry (platform/resources.ts): the composition registers it before any service runs, in
 * `ormConfig` (app/orm.ts: every process that runs services builds its ORM there) and in `allRoutes` (the route table
 * reads the export specs). test/unit/modules.test.ts fails when a module's manifest is missing here.
 */
import { registerResources } from '../platform/resources';
import type { ResourceEntity, ResourceManifest } from '../platform/shared/resource';
import { MODULES } from './modules';

export const RESOURCES: readonly ResourceManifest[] = MODULES.flatMap((m): readonly ResourceManifest[] => m.resources);

/** The manifest of a kind, or undefined. */
export const resourceOf = (kind: string): ResourceManifest | undefined => RESOURCES.find((r) => r.kind === kind);

/** The tenant entities the manifests declare (main entity first, then owned ones). */
export const RESOURCE_ENTITIES: readonly ResourceEntity[] = RESOURCES.flatMap((r) => [
  r.entity,
  ...(r.ownedEntities ?? []),
]);

/** Gives the list to platform's registry (idempotent). */
export function registerAppResources(): void {
  registerResources(RESOURCES);
}
