import type { RouteFactory } from '../../platform/http/app-deps';
import * as events from './calendar-events.service';
import { crudRoutes, viewOf } from '../../platform/http/crud';
import { calendarEventView, createEventBody, listEventsQuery, updateEventBody } from './calendar-events.schemas';

export const calendarEventsRoutes: RouteFactory = () =>
  crudRoutes({
    base: '/api/v1/events',
    section: 'Calendar events',
    kind: 'event',
    access: { read: { scopes: ['read'] }, write: { scopes: ['write'] } },
    schemas: { list: listEventsQuery, create: createEventBody, update: updateEventBody, view: calendarEventView },
    service: {
      list: events.listEvents,
      create: events.createEvent,
      get: viewOf(events.getEvent, events.serializeEvent),
      update: events.updateEvent,
      remove: events.deleteEvent,
    },
    summaries: {
      list: 'List calendar events, earliest start first; from/to bound the start.',
      create: 'Create a calendar event (emits event_created).',
      get: 'Get one calendar event.',
      update: 'Update a calendar event (partial; end must stay at or after start).',
      remove: 'Delete a calendar event.',
    },
  });
