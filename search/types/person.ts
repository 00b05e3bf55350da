import { Person } from '../../modules/people';
import { defineSearchType, joinParts } from './definition';

const fullName = (p: Person): string => [p.firstName, p.lastName].filter(Boolean).join(' ');

export const personSearch = defineSearchType<Person>({
  type: 'person',
  entity: Person,
  title: fullName,
  titleFields: ['firstName', 'lastName'],
  subtitle: (p, names) => joinParts(p.title, names.companyName) ?? p.emails[0]?.email ?? null,
  fields: [
    {
      attribute: 'title',
      value: fullName,
      pg: ['firstName', 'lastName', (col) => `concat_ws(' ', ${col('firstName')}, ${col('lastName')})`],
    },
    { attribute: 'emails', value: (p) => p.emails.map((e) => e.email), pg: ['emails'] },
    { attribute: 'jobTitle', value: (p) => p.title, pg: ['title'] },
    { attribute: 'companyName', value: (_p, names) => names.companyName, pg: 'reference' },
    { attribute: 'phones', value: (p) => p.phones.map((ph) => ph.phone), pg: ['phones'], exact: true },
    { attribute: 'tags', value: (p) => p.tags, pg: ['tags'] },
  ],
  references: [{ type: 'company', property: 'companyId', idAttribute: 'companyId', nameAttribute: 'companyName' }],
});
