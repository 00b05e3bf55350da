import type { MikroORM } from '@mikro-orm/postgresql';
import type { WorkflowPort } from './workflow-port';
import type { AppConfig } from './config';
import type { Logger } from './logger';

/**
 * Dependencies every module's activities receive (each activity call forks its own EM from `orm`). The worker's
 * composition root (bin/worker.ts) builds the ports once and passes them here. A module adds its own ports by
 * declaration merging (`declare module '…/platform/activity-deps' { interface ActivityDeps { … } }`), so that platform
 * imports no module.
 */
export interface ActivityDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  /** Temporal behind the engine port (temporal/workflow-client.ts): fan-out children, schedule ticks. */
  workflows: WorkflowPort;
  /** Tests only: replaces retryIntervalMinutes for runs started by activities. */
  retryIntervalMs?: number;
  /** Tests only: stale window of unfinished e-mail/SMS claims for sequence sends. */
  staleClaimMs?: number;
}
