import { defineModule } from '../module';
import { automationsRoutes } from '../../api/routes/automations.router';
import { automationRunsRoutes } from '../../api/routes/automation-runs.router';
import { createAutomationActivities } from '../../activities/automation.activities';
import type { ActivityDeps } from '../../activities/deps';
import { portedSubscriberGroup } from '../outbox/subscriber-groups';
import { automationExecutionKind, automationScheduleTickKind } from '../workflow-kinds';
import { automationResource } from './automations.resource';
import { automationSubscribers } from './engine/subscribers';

/** Automations: definitions, runs (one workflow per execution), schedules and their trigger subscribers. */
export const automationsModule = defineModule({
  name: 'automations',
  resources: [automationResource],
  routes: [automationsRoutes, automationRunsRoutes],
  workflows: [automationExecutionKind, automationScheduleTickKind],
  activities: (deps: ActivityDeps) =>
    createAutomationActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'automations' }),
      engine: { orm: deps.orm, log: deps.log, workflows: deps.workflows, retryIntervalMs: deps.retryIntervalMs },
      messaging: deps.messaging,
      ai: deps.ai,
      // add_to_sequence enrolls through the sequence engine when the process has its port.
      sequences: deps.sequenceWorkflows
        ? {
            orm: deps.orm,
            log: deps.log.child({ component: 'sequences' }),
            workflows: deps.sequenceWorkflows,
            waitScale: deps.config.sequenceWaitScale,
            stepTimeoutMs: deps.config.sequenceStepTimeoutMs,
          }
        : undefined,
    }),
  subscribers: [
    portedSubscriberGroup('automations', 'workflows', ['automations', 'automation-schedules'], (deps, workflows) =>
      automationSubscribers({ orm: deps.orm, log: deps.log.child({ component: 'automations' }), workflows }),
    ),
  ],
});
