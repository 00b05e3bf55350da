import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../domain/config';
import type { Logger } from '../domain/logger';

/** Dependencies every activity module receives (each activity call forks its own EM from `orm`). */
export interface ActivityDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
}

/**
 * All activities registered on the worker. Spread each feature's factory in here, e.g.
 * `...createAutomationActivities(deps)`; workflows type their proxies with
 * `proxyActivities<ReturnType<typeof createActivities>>`, so keep the return type inferred.
 */
export function createActivities(_deps: ActivityDeps) {
  return {} satisfies Record<string, (input: never) => Promise<unknown>>;
}
