import { defineModule } from '../module';
import { metricsRoutes } from '../../api/routes/metrics.router';

export const metricsModule = defineModule({
  name: 'metrics',
  routes: [metricsRoutes],
});
