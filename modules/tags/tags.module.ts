/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as tagsRouter from './tags.router';
import { tagEvents } from './tags.events';

export const tagsModule = defineModule({
  name: 'tags',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./tags.router') as typeof tagsRouter).tagsRoutes],
  events: tagEvents,
});
