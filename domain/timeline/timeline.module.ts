import { defineModule } from '../module';
import { timelineEntryRoutes } from '../../api/routes/timeline.router';
import { activityResource } from './activities.resource';

/** The CRM timeline (the spec's /activities rows). */
export const timelineModule = defineModule({
  name: 'timeline',
  resources: [activityResource],
  routes: [timelineEntryRoutes],
});
