import { defineModule } from '../module';
import { supportRoutes } from '../../api/routes/support.router';
import { subscriberGroup } from '../outbox/subscriber-groups';
import { SUPPORT_INBOUND_SUBSCRIBER, supportInboundSubscriber } from './support-inbound';
import { supportTicketResource } from './support.resource';

/** Support tickets and the inbound mail that opens and answers them. */
export const supportModule = defineModule({
  name: 'support',
  resources: [supportTicketResource],
  routes: [supportRoutes],
  subscribers: [subscriberGroup([SUPPORT_INBOUND_SUBSCRIBER], (deps) => [supportInboundSubscriber(deps)])],
});
