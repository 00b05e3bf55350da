import { defineModule } from '../module';
import { reportsRoutes } from '../../api/routes/reports.router';

export const reportsModule = defineModule({
  name: 'reports',
  routes: [reportsRoutes],
});
