/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as offersRouter from './offers.router';
import type * as offersPublicRouter from './offers-public.router';
import type * as offerCatalogRouter from './offer-catalog.router';
import { offerResource } from './offers.resource';
import { offerEvents } from './offers.events';

export const offersModule = defineModule({
  name: 'offers',
  resources: [offerResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./offers.router') as typeof offersRouter).offersRoutes,
    (require('./offers-public.router') as typeof offersPublicRouter).offersPublicRoutes,
    (require('./offer-catalog.router') as typeof offerCatalogRouter).offerCatalogRoutes,
  ],
  events: offerEvents,
});
