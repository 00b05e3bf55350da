/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as timelineRouter from './timeline.router';
import { activityResource } from './activities.resource';
import { timelineEvents } from './timeline.events';

/** The CRM timeline (the spec's /activities rows). */
export const timelineModule = defineModule({
  name: 'timeline',
  resources: [activityResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./timeline.router') as typeof timelineRouter).timelineEntryRoutes],
  events: timelineEvents,
});
