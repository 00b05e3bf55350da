import type { MikroORM } from '@mikro-orm/postgresql';
import type { AiProvider } from '../domain/ai/ai-provider';
import type { WorkflowPort } from '../domain/automations/engine/ports';
import type { AppConfig } from '../domain/config';
import type { Logger } from '../domain/logger';
import type { MessagingDeps } from '../domain/messaging/factory';
import { createAutomationActivities } from './automation.activities';
import { createWebhookActivities } from './webhooks.activities';

import { createSmsActivities } from './sms.activities';
import { createSequenceActivities } from './sequence.activities';
import type { SequenceWorkflowPort } from '../domain/sequences/ports';
import { createBookingActivities } from './bookings.activities';
import { createEmailBulkActivities } from './email-bulk.activities';
import { createContractActivities } from './contracts.activities';

/** Dependencies every activity module receives (each activity call forks its own EM from `orm`). */
export interface ActivityDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  /** Temporal behind the engine port (temporal/workflow-client.ts): fan-out children, schedule ticks. */
  workflows: WorkflowPort;
  /** Default: built from config on first use (see domain/messaging/factory.ts, domain/ai/factory.ts). */
  messaging?: MessagingDeps;
  ai?: AiProvider;
  /** Tests only: replaces retryIntervalMinutes for runs started by activities. */
  retryIntervalMs?: number;
  /** Starts and signals sequence enrollments (add_to_sequence); absent in processes that do not enroll. */
  sequenceWorkflows?: SequenceWorkflowPort;
  /** Tests only: stale window of unfinished e-mail/SMS claims for sequence sends. */
  staleClaimMs?: number;
}

/**
 * All activities registered on the worker. Spread each feature's factory in here, e.g.
 * `...createAutomationActivities(deps)`; workflows type their proxies with
 * `proxyActivities<ReturnType<typeof createActivities>>`, so keep the return type inferred.
 */
export function createActivities(deps: ActivityDeps) {
  const engine = { orm: deps.orm, log: deps.log, workflows: deps.workflows, retryIntervalMs: deps.retryIntervalMs };
  const sequences = deps.sequenceWorkflows
    ? {
        orm: deps.orm,
        log: deps.log.child({ component: 'sequences' }),
        workflows: deps.sequenceWorkflows,
        waitScale: deps.config.sequenceWaitScale,
        stepTimeoutMs: deps.config.sequenceStepTimeoutMs,
      }
    : undefined;
  return {
    ...createAutomationActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'automations' }),
      engine,
      messaging: deps.messaging,
      ai: deps.ai,
      sequences,
    }),
    ...createWebhookActivities({ orm: deps.orm, config: deps.config, log: deps.log.child({ component: 'webhooks' }) }),

    ...createSmsActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'sms' }),
      gateway: deps.messaging?.gateway,
    }),
    ...createSequenceActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'sequences' }),
      messaging: deps.messaging,
      ai: deps.ai,
      staleClaimMs: deps.staleClaimMs,
    }),
    ...createBookingActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'bookings' }),
      messaging: deps.messaging,
    }),
    ...createEmailBulkActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'email-bulk' }),
      messaging: deps.messaging,
    }),
    ...createContractActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'contracts' }),
      messaging: deps.messaging,
    }),
  } satisfies Record<string, (input: never) => Promise<unknown>>;
}
