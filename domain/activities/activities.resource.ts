import { defineResource } from '../shared/resource';
import { notFound } from '../errors';
import { Activity } from './activity.entity';
import { serializeActivity } from './timeline.service';

/** Timeline rows (the CRM activity feed) as a resource kind. */
export const activityResource = defineResource<Activity>({
  kind: 'activity',
  collection: 'activities',
  getPath: '/api/v1/activities/:id',
  entity: Activity,
  load: async (ctx, id) => {
    const row = await ctx.em.findOne(Activity, { _id: id });
    if (!row) throw notFound('activity');
    return row;
  },
  view: serializeActivity,
  parents: { companyId: 'company', personId: 'person', dealId: 'deal', leadId: 'lead', ownerId: 'user' },
  automation: { entityType: 'activity', namespace: null, lookup: 'Activity' },
});
