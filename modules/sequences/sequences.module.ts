/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as sequencesRouter from './sequences.router';
import type * as sequenceActivities from './sequence.activities';
import type { ActivityDeps } from '../../platform/activity-deps';
import { componentDeps } from '../../platform/component-deps';
import { portedSubscriberGroup } from '../../platform/outbox/subscriber-groups';
import { sequenceEnrollmentKind } from './sequence-enrollment.kind';
import { sequenceAutoEnrollSubscriber } from './auto-enroll';
import { sequenceExitSubscriber } from './exit-subscriber';
import { sequenceResource } from './sequences.resource';
import { sequenceEvents } from './sequences.events';
import type { SequenceWorkflowPort } from './ports';

// The sequence engine's workflow port, as each composition root shares it (declaration merging: platform names no
// module).
declare module '../../platform/http/app-deps' {
  interface AppDeps {
    /** Sequence enrollments (pause, resume, unenroll), bounded like `workflows`. */
    sequenceWorkflows: SequenceWorkflowPort;
  }
}
declare module '../../platform/activity-deps' {
  interface ActivityDeps {
    /** Starts and signals sequence enrollments (add_to_sequence); absent in processes that do not enroll. */
    sequenceWorkflows?: SequenceWorkflowPort;
  }
}
declare module '../../platform/outbox/subscriber' {
  interface SubscriberDeps {
    /** The `sequences` subscribers; required unless left out by name. */
    sequenceWorkflows?: SequenceWorkflowPort;
  }
}

/** Sequences: enrollments (one workflow each), their steps, exit conditions and auto-enrollment. */
export const sequencesModule = defineModule({
  name: 'sequences',
  resources: [sequenceResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./sequences.router') as typeof sequencesRouter).sequencesRoutes],
  workflows: [sequenceEnrollmentKind],
  activities: (deps: ActivityDeps) =>
    // Loaded when the worker builds them (the API never loads activity code).
    (require('./sequence.activities') as typeof sequenceActivities).createSequenceActivities({
      ...componentDeps(deps, 'sequences'),
      ai: deps.ai,
      staleClaimMs: deps.staleClaimMs,
    }),
  subscribers: [
    portedSubscriberGroup(
      'sequences',
      'sequenceWorkflows',
      ['sequence-exits', 'sequence-auto-enroll'],
      (deps, workflows) => {
        const engine = {
          orm: deps.orm,
          log: deps.log.child({ component: 'sequences' }),
          workflows,
          waitScale: deps.config.sequenceWaitScale,
          stepTimeoutMs: deps.config.sequenceStepTimeoutMs,
        };
        return [sequenceExitSubscriber(engine), sequenceAutoEnrollSubscriber(engine)];
      },
    ),
  ],
  events: sequenceEvents,
});
