import { Lead } from '../../modules/leads';
import { defineSearchType, joinParts, linkedName, linkTo } from './definition';

const links = [linkTo<Lead>('company', 'companyRef'), linkTo<Lead>('person', 'personRef')];

export const leadSearch = defineSearchType<Lead>({
  type: 'lead',
  entity: Lead,
  title: (l) => l.title,
  titleFields: ['title'],
  subtitle: (l, names) => joinParts(names.companyName ?? names.personName ?? l.email, l.status),
  fields: [
    { attribute: 'title', value: (l) => l.title, pg: ['title'] },
    { attribute: 'email', value: (l) => l.email, pg: ['email'] },
    ...links.map(linkedName),
    { attribute: 'phone', value: (l) => l.phone, pg: ['phone'], exact: true },
    { attribute: 'source', value: (l) => l.source, pg: ['source'] },
    { attribute: 'tags', value: (l) => l.tags, pg: ['tags'] },
  ],
  references: links,
});
