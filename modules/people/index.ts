/**
 * The people module's public surface: what code outside modules/people may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside. People import nothing of deals (deals reference people):
 * deletePerson takes the deals module's detach as a parameter, and the deals of a person are listed by deals.
 */
export { CompanyPerson, Person } from './person.entity';
export { createPersonBody, personView, updatePersonBody, type PersonInput } from './people.schemas';
export {
  createPerson,
  getPerson,
  linkPerson,
  listCompanyPeople,
  serializePerson,
  unlinkCompanyPeople,
  unlinkPerson,
  updatePerson,
  type DetachPersonRefs,
} from './people.service';
