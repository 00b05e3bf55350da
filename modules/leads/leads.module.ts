/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as leadsRouter from './leads.router';
import type * as leadScoringRouter from './lead-scoring.router';
import type * as leadRoutingRouter from './lead-routing.router';
import { subscriberGroup } from '../../platform/outbox/subscriber-groups';
import { leadResource } from './leads.resource';
import { leadContactSyncSubscriber, leadRescoreSubscriber } from './rescore';
import { leadEvents } from './leads.events';

/** Leads, their scoring rules and routing. */
export const leadsModule = defineModule({
  name: 'leads',
  resources: [leadResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./leads.router') as typeof leadsRouter).leadsRoutes,
    (require('./lead-scoring.router') as typeof leadScoringRouter).leadScoringRoutes,
    (require('./lead-routing.router') as typeof leadRoutingRouter).leadRoutingRoutes,
  ],
  subscribers: [
    subscriberGroup(['lead-rescore', 'lead-contact-sync'], (deps) => [
      leadRescoreSubscriber(deps),
      leadContactSyncSubscriber(deps),
    ]),
  ],
  events: leadEvents,
});
