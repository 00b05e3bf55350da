import { defineModule } from '../module';
import { sequencesRoutes } from '../../api/routes/sequences.router';
import { createSequenceActivities } from '../../activities/sequence.activities';
import type { ActivityDeps } from '../../activities/deps';
import { portedSubscriberGroup } from '../outbox/subscriber-groups';
import { sequenceEnrollmentKind } from '../workflow-kinds';
import { sequenceAutoEnrollSubscriber } from './auto-enroll';
import { sequenceExitSubscriber } from './exit-subscriber';
import { sequenceResource } from './sequences.resource';

/** Sequences: enrollments (one workflow each), their steps, exit conditions and auto-enrollment. */
export const sequencesModule = defineModule({
  name: 'sequences',
  resources: [sequenceResource],
  routes: [sequencesRoutes],
  workflows: [sequenceEnrollmentKind],
  activities: (deps: ActivityDeps) =>
    createSequenceActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'sequences' }),
      messaging: deps.messaging,
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
});
