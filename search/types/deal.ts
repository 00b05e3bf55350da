import { Deal } from '../../modules/deals';
import { defineSearchType, joinParts } from './definition';

export const dealSearch = defineSearchType<Deal>({
  type: 'deal',
  entity: Deal,
  title: (d) => d.title,
  titleFields: ['title'],
  subtitle: (d, names) => joinParts(names.companyName ?? names.personName, d.status),
  fields: [
    { attribute: 'title', value: (d) => d.title, pg: ['title'] },
    { attribute: 'companyName', value: (_d, names) => names.companyName, pg: 'reference' },
    { attribute: 'personName', value: (_d, names) => names.personName, pg: 'reference' },
    { attribute: 'tags', value: (d) => d.tags, pg: ['tags'] },
  ],
  references: [
    { type: 'company', property: 'company', idAttribute: 'companyId', nameAttribute: 'companyName' },
    { type: 'person', property: 'personRef', idAttribute: 'personId', nameAttribute: 'personName' },
  ],
});
