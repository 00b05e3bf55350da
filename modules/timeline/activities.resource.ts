import { defineResource, loadById } from '../../platform/shared/resource';
import { Activity } from './activity.entity';
import { serializeActivity } from './timeline.service';

/** Timeline rows (the CRM activity feed) as a resource kind. */
export const activityResource = defineResource<Activity>({
  kind: 'activity',
  collection: 'activities',
  entity: Activity,
  load: loadById(Activity, 'activity'),
  view: serializeActivity,
  parents: { companyId: 'company', personId: 'person', dealId: 'deal', leadId: 'lead', ownerId: 'user' },
  automation: { entityType: 'activity', namespace: null, lookup: 'Activity' },
});
