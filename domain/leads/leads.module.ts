import { defineModule } from '../module';
import { leadsRoutes } from '../../api/routes/leads.router';
import { leadScoringRoutes } from '../../api/routes/lead-scoring.router';
import { leadRoutingRoutes } from '../../api/routes/lead-routing.router';
import { subscriberGroup } from '../outbox/subscriber-groups';
import { leadResource } from './leads.resource';
import { leadContactSyncSubscriber, leadRescoreSubscriber } from './rescore';

/** Leads, their scoring rules and routing. */
export const leadsModule = defineModule({
  name: 'leads',
  resources: [leadResource],
  routes: [leadsRoutes, leadScoringRoutes, leadRoutingRoutes],
  subscribers: [
    subscriberGroup(['lead-rescore', 'lead-contact-sync'], (deps) => [
      leadRescoreSubscriber(deps),
      leadContactSyncSubscriber(deps),
    ]),
  ],
});
