/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import { Image } from './image.entity';
import type * as imagesRouter from './images.router';

export const imagesModule = defineModule({
  name: 'images',
  // Tenant rows without a manifest (no GET /:id of their own).
  entities: { tenant: [Image] },
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./images.router') as typeof imagesRouter).imagesRoutes],
});
