import { defineResource } from '../shared/resource';
import { plainRecord, byId } from '../automations/engine/record-view';
import { getEvent, serializeEvent } from './calendar-events.service';
import { CalendarEvent } from './calendar-event.entity';

export const eventResource = defineResource<CalendarEvent>({
  kind: 'event',
  collection: 'events',
  getPath: '/api/v1/events/:id',
  entity: CalendarEvent,
  load: getEvent,
  view: serializeEvent,
  parents: { companyId: 'company', personId: 'person', leadId: 'lead', dealId: 'deal', ownerId: 'user' },
  automation: {
    entityType: 'event',
    namespace: 'event',
    lookup: 'Event',
    load: async (em, id) => {
      const row = await byId(em, CalendarEvent, id);
      return row
        ? {
            namespaces: { event: plainRecord(row) },
            links: {
              leadId: row.leadId,
              dealId: row.dealId,
              personId: row.personId,
              companyId: row.companyId,
              ownerId: row.ownerId,
            },
          }
        : null;
    },
  },
});
