/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as calendarEventsRouter from './calendar-events.router';
import { eventResource } from './calendar.resource';
import { calendarEvents } from './calendar.events';

export const calendarModule = defineModule({
  name: 'calendar',
  resources: [eventResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./calendar-events.router') as typeof calendarEventsRouter).calendarEventsRoutes],
  events: calendarEvents,
});
