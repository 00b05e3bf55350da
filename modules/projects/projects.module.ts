/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as projectsRouter from './projects.router';
import type * as clipCardsRouter from './clip-cards.router';
import type * as projectTemplatesRouter from './project-templates.router';
import { projectResource } from './projects.resource';
import { projectEvents } from './projects.events';

/** Projects, clip cards and project templates. */
export const projectsModule = defineModule({
  name: 'projects',
  resources: [projectResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./projects.router') as typeof projectsRouter).projectsRoutes,
    (require('./clip-cards.router') as typeof clipCardsRouter).clipCardsRoutes,
    (require('./project-templates.router') as typeof projectTemplatesRouter).projectTemplatesRoutes,
  ],
  events: projectEvents,
});
