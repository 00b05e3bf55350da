import { defineModule } from '../module';
import { usersRoutes } from '../../api/routes/users.router';
import { userResource } from '../workspaces/workspaces.resource';

/** Users of a workspace (the user manifest and entity live in domain/workspaces/). */
export const usersModule = defineModule({
  name: 'users',
  resources: [userResource],
  routes: [usersRoutes],
});
