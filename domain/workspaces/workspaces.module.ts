import { defineModule } from '../module';
import { systemRoutes } from '../../api/routes/system.router';

/** The workspace itself: health, readiness and the caller (system routes). */
export const workspacesModule = defineModule({
  name: 'workspaces',
  routes: [systemRoutes],
});
