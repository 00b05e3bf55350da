import { defineModule } from '../module';
import { customObjectsRoutes } from '../../api/routes/custom-objects.router';
import { customObjectRecordResource } from './custom-objects.resource';

export const customObjectsModule = defineModule({
  name: 'custom-objects',
  resources: [customObjectRecordResource],
  routes: [customObjectsRoutes],
});
