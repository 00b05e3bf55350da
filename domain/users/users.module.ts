/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../module';
import type * as usersRouter from '../../api/routes/users.router';
import { userResource } from '../workspaces/workspaces.resource';

/** Users of a workspace (the user manifest and entity live in domain/workspaces/). */
export const usersModule = defineModule({
  name: 'users',
  resources: [userResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('../../api/routes/users.router') as typeof usersRouter).usersRoutes],
});
