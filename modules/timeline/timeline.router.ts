import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as activities from './entries.service';
import { ACTIVITY_SUMMARY_FIELDS } from './entries.service';
import { project } from '../../platform/shared/list-query';
import { created, ok, paged, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import { activityReadView, activityView, createActivityBody, listActivitiesQuery } from './timeline.schemas';
import { envelopes } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

const section = 'Activities';

export const timelineEntryRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/activities',
    section,
    access: read,
    query: listActivitiesQuery,
    summary:
      'List activities (calls, meetings, notes, …), newest `date` first. Record history rows are only in the per-record activity feeds. dateFrom/dateTo (aliases startDate/from, endDate/to) bound the activity date; unknown parameters are refused.',
    response: envelopes
      .list(activityReadView)
      .extend({ view: z.enum(['summary', 'full']).describe('the view asked for') }),
    handler: async ({ ctx, query }) => {
      const { items, total } = await activities.listActivities(ctx, query);
      return paged(
        items.map((a) => project(a, { view: query.view, summary: ACTIVITY_SUMMARY_FIELDS })),
        { page: query.page, limit: query.limit, total, view: query.view },
      );
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/activities',
    section,
    access: write,
    body: createActivityBody,
    successStatus: 201,
    summary: 'Create an activity on the timelines of the records it links (each link must exist).',
    response: envelopes.data(activityView),
    handler: async ({ ctx, body }) => created(await activities.createActivity(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/activities/:id',
    section,
    access: read,
    params: idParams,
    resources: { id: 'activity' },
    summary: 'Get one activity (also record-history rows seen in activity feeds).',
    response: envelopes.data(activityView),
    handler: async ({ ctx, params }) => ok(await activities.getActivity(ctx, params.id)),
  }),
];
