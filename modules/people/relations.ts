import type { CompanyRelations, RelatedList } from '../companies';
import { personView } from './people.schemas';
import {
  linkPerson,
  listCompanyPeople,
  unlinkCompanyPeople,
  unlinkPerson,
  type DetachPersonRefs,
} from './people.service';

/**
 * What a person's routes list and detach of the deals module: deals reference people, so people do not import deals;
 * deals give their part (personDeals) and the composition (app/modules.ts) passes it to the people module.
 */
export interface PersonRelations {
  deals: RelatedList & {
    /** On delete: deals keep no person reference. */
    detachAll: DetachPersonRefs;
  };
}

/** People's part of the company routes (companies' CompanyRelations): the people linked to a company. */
export const companyPeople: CompanyRelations['people'] = {
  view: personView,
  list: listCompanyPeople,
  link: linkPerson,
  unlink: unlinkPerson,
  unlinkAll: unlinkCompanyPeople,
};
