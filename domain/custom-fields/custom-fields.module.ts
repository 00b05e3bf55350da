import { defineModule } from '../module';
import { customFieldsRoutes } from '../../api/routes/custom-fields.router';
import { customFieldResource } from './custom-fields.resource';

export const customFieldsModule = defineModule({
  name: 'custom-fields',
  resources: [customFieldResource],
  routes: [customFieldsRoutes],
});
