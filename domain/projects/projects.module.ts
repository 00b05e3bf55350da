import { defineModule } from '../module';
import { projectsRoutes } from '../../api/routes/projects.router';
import { clipCardsRoutes } from '../../api/routes/clip-cards.router';
import { projectTemplatesRoutes } from '../../api/routes/project-templates.router';
import { projectResource } from './projects.resource';

/** Projects, clip cards and project templates. */
export const projectsModule = defineModule({
  name: 'projects',
  resources: [projectResource],
  routes: [projectsRoutes, clipCardsRoutes, projectTemplatesRoutes],
});
