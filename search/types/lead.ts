import { Lead } from '../../modules/leads';
import { defineSearchType, joinParts } from './definition';

export const leadSearch = defineSearchType<Lead>({
  type: 'lead',
  entity: Lead,
  title: (l) => l.title,
  titleFields: ['title'],
  subtitle: (l, names) => joinParts(names.companyName ?? names.personName ?? l.email, l.status),
  fields: [
    { attribute: 'title', value: (l) => l.title, pg: ['title'] },
    { attribute: 'email', value: (l) => l.email, pg: ['email'] },
    { attribute: 'companyName', value: (_l, names) => names.companyName, pg: 'reference' },
    { attribute: 'personName', value: (_l, names) => names.personName, pg: 'reference' },
    { attribute: 'phone', value: (l) => l.phone, pg: ['phone'], exact: true },
    { attribute: 'source', value: (l) => l.source, pg: ['source'] },
    { attribute: 'tags', value: (l) => l.tags, pg: ['tags'] },
  ],
  references: [
    { type: 'company', property: 'companyRef', idAttribute: 'companyId', nameAttribute: 'companyName' },
    { type: 'person', property: 'personRef', idAttribute: 'personId', nameAttribute: 'personName' },
  ],
});
