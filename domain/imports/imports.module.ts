import { defineModule } from '../module';
import { importRoutes } from '../../api/routes/import.router';

export const importsModule = defineModule({
  name: 'imports',
  routes: [importRoutes],
});
