import { defineModule } from '../module';
import { tagsRoutes } from '../../api/routes/tags.router';

export const tagsModule = defineModule({
  name: 'tags',
  routes: [tagsRoutes],
});
