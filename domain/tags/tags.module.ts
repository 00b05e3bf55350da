/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../module';
import type * as tagsRouter from '../../api/routes/tags.router';

export const tagsModule = defineModule({
  name: 'tags',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('../../api/routes/tags.router') as typeof tagsRouter).tagsRoutes],
});
