import { SupportTicket } from '../../modules/support';
import { defineSearchType, joinParts, linkedName, linkTo } from './definition';

const links = [linkTo<SupportTicket>('company', 'company'), linkTo<SupportTicket>('person', 'personRef')];

export const supportTicketSearch = defineSearchType<SupportTicket>({
  type: 'support-ticket',
  entity: SupportTicket,
  title: (t) => `#${t.ticketNumber} ${t.title}`,
  titleFields: ['ticketNumber', 'title'],
  subtitle: (t, names) =>
    joinParts(names.companyName ?? names.personName ?? t.customerEmail, t.status.replace('_', ' ')),
  fields: [
    { attribute: 'title', value: (t) => t.title, pg: ['title'] },
    { attribute: 'ticketNumber', value: (t) => String(t.ticketNumber), exact: true },
    { attribute: 'description', value: (t) => t.description, pg: ['description'] },
    {
      attribute: 'customer',
      value: (t) => [t.customerName, t.customerEmail].filter((x): x is string => !!x),
      pg: ['customerName', 'customerEmail'],
    },
    ...links.map(linkedName),
    { attribute: 'tags', value: (t) => t.tags, pg: ['tags'] },
  ],
  references: links,
});
