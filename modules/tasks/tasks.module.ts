/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as tasksRouter from './tasks.router';
import { taskResource } from './tasks.resource';
import { taskEvents } from './tasks.events';

export const tasksModule = defineModule({
  name: 'tasks',
  resources: [taskResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./tasks.router') as typeof tasksRouter).tasksRoutes],
  events: taskEvents,
});
