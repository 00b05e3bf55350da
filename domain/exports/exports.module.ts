import { defineModule } from '../module';
import { exportRoutes } from '../../api/routes/export.router';

export const exportsModule = defineModule({
  name: 'exports',
  routes: [exportRoutes],
});
