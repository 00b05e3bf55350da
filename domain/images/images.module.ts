/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../module';
import type * as imagesRouter from '../../api/routes/images.router';

export const imagesModule = defineModule({
  name: 'images',
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('../../api/routes/images.router') as typeof imagesRouter).imagesRoutes],
});
