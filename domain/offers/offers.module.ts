/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../module';
import type * as offersRouter from '../../api/routes/offers.router';
import type * as offersPublicRouter from '../../api/routes/offers-public.router';
import type * as offerCatalogRouter from '../../api/routes/offer-catalog.router';
import { offerResource } from './offers.resource';

export const offersModule = defineModule({
  name: 'offers',
  resources: [offerResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('../../api/routes/offers.router') as typeof offersRouter).offersRoutes,
    (require('../../api/routes/offers-public.router') as typeof offersPublicRouter).offersPublicRoutes,
    (require('../../api/routes/offer-catalog.router') as typeof offerCatalogRouter).offerCatalogRoutes,
  ],
});
