/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as automationsRouter from './automations.router';
import type * as automationRunsRouter from './automation-runs.router';
import type * as automationSkipsRouter from './automation-skips.router';
import type * as automationActivities from './automation.activities';
import type { ActivityDeps } from '../../platform/activity-deps';
import type { SequenceEnroller } from './actions/deps';
import { componentDeps } from '../../platform/component-deps';
import { portedSubscriberGroup } from '../../platform/outbox/subscriber-groups';
import { automationExecutionKind } from './automation-execution.kind';
import { automationScheduleTickKind } from './automation-schedule.kind';
import { automationResource } from './automations.resource';
import { automationSubscribers } from './engine/subscribers';
import { inFlightLimit } from './engine/in-flight';
import { automationEvents } from './automations.events';

/**
 * Automations: definitions, runs (one workflow per execution), schedules and their trigger subscribers.
 * `enroller`: how add_to_sequence enrolls, from the worker's deps (the sequences module's, given by app/modules.ts:
 * sequences build on automations, so automations do not import them).
 */
export const automationsModule = (enroller: (deps: ActivityDeps) => SequenceEnroller | undefined) =>
  defineModule({
    name: 'automations',
    resources: [automationResource],
    // Loaded when the API mounts them (the worker never loads the HTTP layer).
    routes: () => [
      (require('./automations.router') as typeof automationsRouter).automationsRoutes,
      (require('./automation-runs.router') as typeof automationRunsRouter).automationRunsRoutes,
      (require('./automation-skips.router') as typeof automationSkipsRouter).automationSkipsRoutes,
    ],
    workflows: [automationExecutionKind, automationScheduleTickKind],
    activities: (deps: ActivityDeps) =>
      // Loaded when the worker builds them (the API never loads activity code).
      (require('./automation.activities') as typeof automationActivities).createAutomationActivities({
        ...componentDeps(deps, 'automations'),
        engine: { orm: deps.orm, log: deps.log, workflows: deps.workflows, retryIntervalMs: deps.retryIntervalMs },
        ai: deps.ai,
        // add_to_sequence enrolls through the sequence engine when the process has its port.
        sequences: enroller(deps),
      }),
    subscribers: [
      portedSubscriberGroup('automations', 'workflows', ['automations', 'automation-schedules'], (deps, workflows) =>
        automationSubscribers({
          orm: deps.orm,
          log: deps.log.child({ component: 'automations' }),
          workflows,
          inFlight: deps.runStarter ? inFlightLimit(deps.config) : undefined,
        }),
      ),
    ],

    events: automationEvents,
  });
