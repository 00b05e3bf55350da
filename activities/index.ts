import type { MikroORM } from '@mikro-orm/postgresql';
import type { AiProvider } from '../domain/ai/ai-provider';
import type { WorkflowPort } from '../domain/automations/engine/ports';
import type { AppConfig } from '../domain/config';
import type { Logger } from '../domain/logger';
import type { MessagingDeps } from '../domain/messaging/factory';
import { createAutomationActivities } from './automation.activities';

/** Dependencies every activity module receives (each activity call forks its own EM from `orm`). */
export interface ActivityDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  /** Temporal behind the engine port (infra/automation-client.ts): fan-out children, schedule ticks. */
  workflows: WorkflowPort;
  /** Default: built from config on first use (see domain/messaging/factory.ts, domain/ai/factory.ts). */
  messaging?: MessagingDeps;
  ai?: AiProvider;
  /** Tests only: replaces retryIntervalMinutes for runs started by activities. */
  retryIntervalMs?: number;
}

/**
 * All activities registered on the worker. Spread each feature's factory in here, e.g.
 * `...createAutomationActivities(deps)`; workflows type their proxies with
 * `proxyActivities<ReturnType<typeof createActivities>>`, so keep the return type inferred.
 */
export function createActivities(deps: ActivityDeps) {
  const engine = { orm: deps.orm, log: deps.log, workflows: deps.workflows, retryIntervalMs: deps.retryIntervalMs };
  return {
    ...createAutomationActivities({ orm: deps.orm, config: deps.config, log: deps.log.child({ component: 'automations' }), engine, messaging: deps.messaging, ai: deps.ai }),
  } satisfies Record<string, (input: never) => Promise<unknown>>;
}
