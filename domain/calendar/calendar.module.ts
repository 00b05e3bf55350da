import { defineModule } from '../module';
import { calendarEventsRoutes } from '../../api/routes/calendar-events.router';
import { eventResource } from './calendar.resource';

export const calendarModule = defineModule({
  name: 'calendar',
  resources: [eventResource],
  routes: [calendarEventsRoutes],
});
