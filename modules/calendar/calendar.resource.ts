import { defineResource } from '../../platform/shared/resource';
import { linkedRecordLoader } from '../../platform/shared/record-view';
import { getEvent, serializeEvent } from './calendar-events.service';
import { CalendarEvent } from './calendar-event.entity';

export const eventResource = defineResource<CalendarEvent>({
  kind: 'event',
  collection: 'events',
  entity: CalendarEvent,
  load: getEvent,
  view: serializeEvent,
  parents: { companyId: 'company', personId: 'person', leadId: 'lead', dealId: 'deal', ownerId: 'user' },
  automation: {
    entityType: 'event',
    namespace: 'event',
    lookup: 'Event',
    load: linkedRecordLoader(CalendarEvent, 'event'),
  },
});
