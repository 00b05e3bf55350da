import { defineResource } from '../../platform/shared/resource';
import { contactView, rowLoader } from '../../platform/shared/record-view';
import { getPerson, serializePerson } from './people.service';
import { PERSON_FIELDS, PERSON_SUMMARY_FIELDS } from './people.schemas';
import { CompanyPerson, Person } from './person.entity';

export const personResource = defineResource<Person>({
  kind: 'person',
  collection: 'people',
  entity: Person,
  // The company ↔ person links (linkPerson, unlinkPerson): people owns them; companies does not import people.
  ownedEntities: [CompanyPerson],
  load: getPerson,
  view: serializePerson,
  parents: { companyId: 'company', ownerId: 'user' },
  automation: {
    // A person fills `person` and its alias `contact` (the spec's contact namespace).
    entityType: 'person',
    namespace: 'person',
    lookup: 'People',
    load: rowLoader(Person, (person) => {
      const view = contactView(person);
      return {
        namespaces: { person: view, contact: view },
        links: { companyId: person.companyId, ownerId: person.ownerId },
      };
    }),
  },
  search: 'person',
  export: {
    fields: PERSON_FIELDS,
    sortable: ['_id', 'createdAt', 'updatedAt', 'firstName', 'lastName'],
    filters: ['companyId', 'title', 'ownerId', 'tags'],
  },
  record: {
    customFieldStorage: 'pairs',
    summaryFields: PERSON_SUMMARY_FIELDS,
    displayName: (r) => [r.firstName, r.lastName].filter(Boolean).join(' '),
  },
  timeline: { refKind: 'person', linkColumn: 'personId' },
});
