import { defineModule } from '../module';
import { dealsRoutes } from '../../api/routes/deals.router';
import { flowsRoutes } from '../../api/routes/flows.router';
import { dealResource } from './deals.resource';

/** Deals and their flows (pipelines). */
export const dealsModule = defineModule({
  name: 'deals',
  resources: [dealResource],
  routes: [dealsRoutes, flowsRoutes],
});
