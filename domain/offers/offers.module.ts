import { defineModule } from '../module';
import { offersRoutes } from '../../api/routes/offers.router';
import { offersPublicRoutes } from '../../api/routes/offers-public.router';
import { offerCatalogRoutes } from '../../api/routes/offer-catalog.router';
import { offerResource } from './offers.resource';

export const offersModule = defineModule({
  name: 'offers',
  resources: [offerResource],
  routes: [offersRoutes, offersPublicRoutes, offerCatalogRoutes],
});
