import type { RouteFactory } from '../app';
import * as events from '../../domain/calendar/calendar-events.service';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../../domain/shared/schemas';
import { createEventBody, listEventsQuery, updateEventBody } from '../../domain/calendar/calendar-events.schemas';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const section = 'Calendar events';
const resources = { id: 'event' };

export const calendarEventsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/events',
    section,
    access: read,
    query: listEventsQuery,
    summary: 'List calendar events, earliest start first; from/to bound the start.',
    handler: async ({ ctx, query }) => {
      const { items, total } = await events.listEvents(ctx, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/events',
    section,
    access: write,
    body: createEventBody,
    successStatus: 201,
    summary: 'Create a calendar event (emits event_created).',
    handler: async ({ ctx, body }) => created(await events.createEvent(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/events/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'Get one calendar event.',
    handler: async ({ ctx, params }) => ok(events.serializeEvent(await events.getEvent(ctx, params.id))),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/events/:id',
    section,
    access: write,
    params: idParams,
    body: updateEventBody,
    resources,
    summary: 'Update a calendar event (partial; end must stay at or after start).',
    handler: async ({ ctx, params, body }) => ok(await events.updateEvent(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/events/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary: 'Delete a calendar event.',
    handler: async ({ ctx, params }) => {
      await events.deleteEvent(ctx, params.id);
      return acknowledged();
    },
  }),
];
