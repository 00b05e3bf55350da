import { defineModule } from '../module';
import { callsRoutes } from '../../api/routes/calls.router';
import { callResource } from './calls.resource';

export const callsModule = defineModule({
  name: 'calls',
  resources: [callResource],
  routes: [callsRoutes],
});
