import { defineModule } from '../module';
import { listsRoutes } from '../../api/routes/lists.router';
import { listResource } from './lists.resource';

export const listsModule = defineModule({
  name: 'lists',
  resources: [listResource],
  routes: [listsRoutes],
});
