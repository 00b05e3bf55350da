import type { z } from 'zod';
import type { Ctx } from '../../platform/context';
import { listTimeline, type TimelineLink } from './timeline.service';
import { activityView } from './timeline.schemas';
import type { PageRequest } from '../../platform/shared/listing';
import { envelopes } from '../../platform/http/crud';
import { paged, route, type RouteDef } from '../../platform/http/registry';
import { idParams, pageQuery } from '../../platform/shared/schemas';

interface ParentSpec {
  /** e.g. /api/v1/companies */
  base: string;
  section: string;
  /** Resource kind of :id, for the tenant-isolation suite. */
  kind: string;
  /** Loads the parent or throws 404, so another workspace's id is never listed. */
  load: (ctx: Ctx, id: string) => Promise<unknown>;
}

/** A paginated child list of one record, e.g. GET /companies/:id/deals; `view` is one item as listed. */
export function childListRoute<V extends z.ZodType>(
  parent: ParentSpec,
  sub: string,
  summary: string,
  view: V,
  list: (ctx: Ctx, id: string, page: PageRequest) => Promise<{ items: z.infer<V>[]; total: number }>,
): RouteDef {
  return route({
    method: 'GET',
    path: `${parent.base}/:id/${sub}`,
    section: parent.section,
    access: { scopes: ['read'] },
    params: idParams,
    query: pageQuery(),
    resources: { id: parent.kind },
    summary,
    response: envelopes.list(view),
    handler: async ({ ctx, params, query }) => {
      await parent.load(ctx, params.id);
      const { items, total } = await list(ctx, params.id, query);
      return paged(items, { ...query, total });
    },
  });
}

/** GET …/:id/activities (activities only) and …/:id/activity-feed (activities plus record history). */
export function timelineRoutes(
  parent: ParentSpec,
  link: keyof Omit<TimelineLink, 'entityType' | 'entityId'>,
  noun: string,
): RouteDef[] {
  return [
    childListRoute(
      parent,
      'activities',
      `Activities (calls, meetings, notes, …) linked to the ${noun}, newest first.`,
      activityView,
      (ctx, id, page) => listTimeline(ctx, { [link]: id }, page, { feed: false }),
    ),
    childListRoute(
      parent,
      'activity-feed',
      `Full timeline of the ${noun}: activities plus record events (created, field changes with old and new values, links), newest first.`,
      activityView,
      (ctx, id, page) => listTimeline(ctx, { [link]: id }, page, { feed: true }),
    ),
  ];
}
