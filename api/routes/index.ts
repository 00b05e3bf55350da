import type { AppDeps, RouteFactory } from '../../platform/http/app-deps';
import type { RouteDef } from '../../platform/http/registry';
import { MODULES } from '../../app/modules';
import { registerAppResources } from '../../app/resources';
import { docsRoutes } from './docs.router';

/** Every module's route factories, in MODULES order (domain/modules.ts). */
export const ROUTE_FACTORIES: readonly RouteFactory[] = MODULES.flatMap((m): readonly RouteFactory[] => m.routes());

/**
 * Every route of the API, in one list: mounted by the app, walked by docs and guard tests. The modules' routes, then
 * the documentation of all of them.
 */
export function allRoutes(deps: AppDeps): RouteDef[] {
  // Routers read the resource list (the export routes, one per record type) while they are built.
  registerAppResources();
  const routes: RouteDef[] = [...ROUTE_FACTORIES, docsRoutes(() => routes)].flatMap((factory) => factory(deps));
  return routes;
}
