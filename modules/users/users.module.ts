/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as usersRouter from './users.router';
import { userResource } from '../workspaces/workspaces.resource';
import { userEvents } from './users.events';

/** Users of a workspace (the user manifest and entity live in modules/workspaces/). */
export const usersModule = defineModule({
  name: 'users',
  resources: [userResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./users.router') as typeof usersRouter).usersRoutes],
  events: userEvents,
});
