import type { AppConfig } from './config';
import type { Logger } from './logger';

/**
 * What most activities and subscribers of a module take from the worker's deps: the ORM, the config and
 * messaging as they are, and the log as a child named for `component`.
 */
export function componentDeps<D extends { orm: unknown; config: AppConfig; log: Logger; messaging?: unknown }>(
  deps: D,
  component: string,
): { orm: D['orm']; config: AppConfig; log: Logger; messaging: D['messaging'] } {
  return { orm: deps.orm, config: deps.config, log: deps.log.child({ component }), messaging: deps.messaging };
}
