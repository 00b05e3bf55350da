/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as contractsRouter from './contracts.router';
import type * as contractSigningRouter from './contract-signing.router';
import type * as contractsActivities from './contracts.activities';
import type { ActivityDeps } from '../../platform/activity-deps';
import { componentDeps } from '../../platform/component-deps';
import { contractEnvelopeKind } from './contract-envelope.kind';
import { portedSubscriberGroup } from '../../platform/outbox/subscriber-groups';
import { contractResource } from './contracts.resource';
import { envelopeWakeSubscriber } from './envelope-wake';
import { contractEvents } from './contracts.events';
import type { EidProvider } from './eid';

// Declaration merging: platform names no module.
declare module '../../platform/http/app-deps' {
  interface AppDeps {
    /** The national e-ID signing provider (EID_PROVIDER_URL) of contracts with signatureLevel eid. */
    eid: EidProvider;
  }
}

/** Contracts and their signing envelopes (one workflow per sent contract), public signing links. */
export const contractsModule = defineModule({
  name: 'contracts',
  resources: [contractResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./contracts.router') as typeof contractsRouter).contractsRoutes,
    (require('./contract-signing.router') as typeof contractSigningRouter).contractSigningRoutes,
  ],
  workflows: [contractEnvelopeKind],
  activities: (deps: ActivityDeps) =>
    // Loaded when the worker builds them (the API never loads activity code).
    (require('./contracts.activities') as typeof contractsActivities).createContractActivities(
      componentDeps(deps, 'contracts'),
    ),
  // Needs the engine port: wakes envelope workflows from contract events (envelope-wake.ts).
  subscribers: [
    portedSubscriberGroup('contract-envelopes', 'workflows', ['contract-envelope-wake'], (_deps, workflows) => [
      envelopeWakeSubscriber({ workflows }),
    ]),
  ],
  events: contractEvents,
});
