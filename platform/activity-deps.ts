import type { MikroORM } from '@mikro-orm/postgresql';
import type { AiProvider } from '../modules/ai';
import type { WorkflowPort } from './workflow-port';
import type { AppConfig } from './config';
import type { Logger } from './logger';
import type { MessagingDeps } from '../modules/email';
import type { SequenceWorkflowPort } from '../modules/sequences';

/**
 * Dependencies every module's activities receive (each activity call forks its own EM from `orm`). The worker's
 * composition root (bin/worker.ts) builds the ports once and passes them here.
 */
export interface ActivityDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  /** Temporal behind the engine port (temporal/workflow-client.ts): fan-out children, schedule ticks. */
  workflows: WorkflowPort;
  /** Default: built from config on first use (see modules/email/messaging-deps.ts, modules/ai/factory.ts). */
  messaging?: MessagingDeps;
  ai?: AiProvider;
  /** Tests only: replaces retryIntervalMinutes for runs started by activities. */
  retryIntervalMs?: number;
  /** Starts and signals sequence enrollments (add_to_sequence); absent in processes that do not enroll. */
  sequenceWorkflows?: SequenceWorkflowPort;
  /** Tests only: stale window of unfinished e-mail/SMS claims for sequence sends. */
  staleClaimMs?: number;
}
