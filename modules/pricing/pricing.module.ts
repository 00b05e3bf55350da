/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as offerTypesRouter from './offer-types.router';
import type * as calculatorsRouter from './calculators.router';
import { offerTypeResource } from './pricing.resource';
import { pricingEvents } from './pricing.events';

/** Offer types and price calculators. */
export const pricingModule = defineModule({
  name: 'pricing',
  resources: [offerTypeResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./offer-types.router') as typeof offerTypesRouter).offerTypesRoutes,
    (require('./calculators.router') as typeof calculatorsRouter).calculatorsRoutes,
  ],
  events: pricingEvents,
});
