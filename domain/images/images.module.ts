import { defineModule } from '../module';
import { imagesRoutes } from '../../api/routes/images.router';

export const imagesModule = defineModule({
  name: 'images',
  routes: [imagesRoutes],
});
