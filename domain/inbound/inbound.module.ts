import { defineModule } from '../module';
import { inboundRoutes } from '../../api/routes/inbound.router';

export const inboundModule = defineModule({
  name: 'inbound',
  routes: [inboundRoutes],
});
