import { defineModule } from '../module';
import { peopleRoutes } from '../../api/routes/people.router';
import { personResource } from './people.resource';

export const peopleModule = defineModule({
  name: 'people',
  resources: [personResource],
  routes: [peopleRoutes],
});
