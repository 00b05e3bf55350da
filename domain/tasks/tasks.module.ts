import { defineModule } from '../module';
import { tasksRoutes } from '../../api/routes/tasks.router';
import { taskResource } from './tasks.resource';

export const tasksModule = defineModule({
  name: 'tasks',
  resources: [taskResource],
  routes: [tasksRoutes],
});
