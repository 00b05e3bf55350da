import { defineModule } from '../module';
import { offerTypesRoutes } from '../../api/routes/offer-types.router';
import { calculatorsRoutes } from '../../api/routes/calculators.router';
import { offerTypeResource } from './pricing.resource';

/** Offer types and price calculators. */
export const pricingModule = defineModule({
  name: 'pricing',
  resources: [offerTypeResource],
  routes: [offerTypesRoutes, calculatorsRoutes],
});
