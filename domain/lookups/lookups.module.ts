import { defineModule } from '../module';
import { lookupsRoutes } from '../../api/routes/lookups.router';
import { lookupEnv } from './settings';

/** Company registry and public web lookups. */
export const lookupsModule = defineModule({
  name: 'lookups',
  routes: [lookupsRoutes],
  settings: { section: 'lookups', load: lookupEnv },
});
