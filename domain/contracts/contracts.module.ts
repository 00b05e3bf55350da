import { defineModule } from '../module';
import { contractsRoutes } from '../../api/routes/contracts.router';
import { contractSigningRoutes } from '../../api/routes/contract-signing.router';
import { createContractActivities } from '../../activities/contracts.activities';
import type { ActivityDeps } from '../../activities/deps';
import { contractEnvelopeKind } from '../workflow-kinds';
import { contractResource } from './contracts.resource';

/** Contracts and their signing envelopes (one workflow per sent contract), public signing links. */
export const contractsModule = defineModule({
  name: 'contracts',
  resources: [contractResource],
  routes: [contractsRoutes, contractSigningRoutes],
  workflows: [contractEnvelopeKind],
  activities: (deps: ActivityDeps) =>
    createContractActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'contracts' }),
      messaging: deps.messaging,
    }),
});
