import { Offer } from '../../modules/offers';
import { defineSearchType, joinParts, linkedName, linkTo } from './definition';

const links = [linkTo<Offer>('company', 'companyRef'), linkTo<Offer>('person', 'personRef')];

export const offerSearch = defineSearchType<Offer>({
  type: 'offer',
  entity: Offer,
  title: (o) => (o.offerNumber ? `${o.offerNumber} ${o.title}` : o.title),
  titleFields: ['title', 'offerNumber'],
  subtitle: (o, names) => joinParts(names.companyName ?? names.personName, o.status),
  fields: [
    { attribute: 'title', value: (o) => o.title, pg: ['title'] },
    { attribute: 'offerNumber', value: (o) => o.offerNumber, pg: ['offerNumber'], exact: true },
    ...links.map(linkedName),
  ],
  references: links,
});
