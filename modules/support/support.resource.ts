import { defineResource } from '../../platform/shared/resource';
import { getTicket, serializeTicket } from './tickets.service';
import { SupportFlow, SupportTicket, SupportTicketMessage, SupportTimeEntry } from './support.entity';

export const supportTicketResource = defineResource<SupportTicket>({
  kind: 'support-ticket',
  collection: 'support-tickets',
  entity: SupportTicket,
  ownedEntities: [SupportFlow, SupportTicketMessage, SupportTimeEntry],
  load: getTicket,
  view: serializeTicket,
  parents: { company: 'company', personRef: 'person' },
  automation: { entityType: 'support-ticket', namespace: null, lookup: 'SupportTicket' },
  search: 'support-ticket',
});
