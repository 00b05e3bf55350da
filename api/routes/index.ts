import type { AppDeps } from '../app';
import type { RouteDef } from '../http/registry';
import { companiesRoutes } from './companies.router';
import { peopleRoutes } from './people.router';
import { imagesRoutes } from './images.router';
import { systemRoutes } from './system.router';
import { docsRoutes } from './docs.router';

/** Every route of the API, in one list: mounted by the app, walked by docs and guard tests. */
export function allRoutes(deps: AppDeps): RouteDef[] {
  const routes: RouteDef[] = [systemRoutes, companiesRoutes, peopleRoutes, imagesRoutes, docsRoutes(() => routes)].flatMap((factory) => factory(deps));
  return routes;
}
