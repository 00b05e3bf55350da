import { Offer } from '../../modules/offers';
import { defineSearchType, joinParts } from './definition';

export const offerSearch = defineSearchType<Offer>({
  type: 'offer',
  entity: Offer,
  title: (o) => (o.offerNumber ? `${o.offerNumber} ${o.title}` : o.title),
  titleFields: ['title', 'offerNumber'],
  subtitle: (o, names) => joinParts(names.companyName ?? names.personName, o.status),
  fields: [
    { attribute: 'title', value: (o) => o.title, pg: ['title'] },
    { attribute: 'offerNumber', value: (o) => o.offerNumber, pg: ['offerNumber'], exact: true },
    { attribute: 'companyName', value: (_o, names) => names.companyName, pg: 'reference' },
    { attribute: 'personName', value: (_o, names) => names.personName, pg: 'reference' },
  ],
  references: [
    { type: 'company', property: 'companyRef', idAttribute: 'companyId', nameAttribute: 'companyName' },
    { type: 'person', property: 'personRef', idAttribute: 'personId', nameAttribute: 'personName' },
  ],
});
