/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as supportRouter from './support.router';
import { subscriberGroup } from '../../platform/outbox/subscriber-groups';
import { SUPPORT_INBOUND_SUBSCRIBER, supportInboundSubscriber } from './support-inbound';
import { supportTicketResource } from './support.resource';
import { supportEvents } from './support.events';

/** Support tickets and the inbound mail that opens and answers them. */
export const supportModule = defineModule({
  name: 'support',
  resources: [supportTicketResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./support.router') as typeof supportRouter).supportRoutes],
  subscribers: [subscriberGroup([SUPPORT_INBOUND_SUBSCRIBER], (deps) => [supportInboundSubscriber(deps)])],
  events: supportEvents,
});
