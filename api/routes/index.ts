import type { AppDeps } from '../app';
import type { RouteDef } from '../http/registry';
import { systemRoutes } from './system.router';

/** Every route of the API, in one list: mounted by the app, walked by docs and guard tests. */
export function allRoutes(deps: AppDeps): RouteDef[] {
  return [systemRoutes].flatMap((factory) => factory(deps));
}
