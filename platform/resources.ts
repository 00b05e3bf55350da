/**
 * The resource registry: every resource kind, declared once in its module's `<module>.resource.ts` and named by its
 * module's `resources`. The composition (app/resources.ts) builds the list from MODULES and registers it here before
 * anything reads it; platform/ imports no module, so the readers (record kinds, export specs, the automation context
 * loader and lookup node) take it from here at run time. test/unit/resources.test.ts fails when a kind is
 * half-registered, test/unit/modules.test.ts when a module's manifest is missing from the list.
 */
import type { ResourceManifest } from './shared/resource';

let registered: readonly ResourceManifest[] | undefined;

/** Called by app/resources.ts (idempotent for the same list; a second, different list is a composition error). */
export function registerResources(manifests: readonly ResourceManifest[]): void {
  if (registered && registered !== manifests) throw new Error('resources: a different list was registered already');
  registered = manifests;
}

/** Every registered manifest, in MODULES order. */
export function resources(): readonly ResourceManifest[] {
  if (!registered)
    throw new Error('resources: not registered yet (a composition root calls registerAppResources, app/resources.ts)');
  return registered;
}
