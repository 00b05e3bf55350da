import { Deal } from '../../modules/deals';
import { defineSearchType, joinParts, linkedName, linkTo } from './definition';

const links = [linkTo<Deal>('company', 'company'), linkTo<Deal>('person', 'personRef')];

export const dealSearch = defineSearchType<Deal>({
  type: 'deal',
  entity: Deal,
  title: (d) => d.title,
  titleFields: ['title'],
  subtitle: (d, names) => joinParts(names.companyName ?? names.personName, d.status),
  fields: [
    { attribute: 'title', value: (d) => d.title, pg: ['title'] },
    ...links.map(linkedName),
    { attribute: 'tags', value: (d) => d.tags, pg: ['tags'] },
  ],
  references: links,
});
