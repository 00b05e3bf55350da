/**
 * The people module's public surface: what code outside modules/people may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside. People import nothing of deals (deals reference people):
 * the person routes get the deals' list and detach (PersonRelations) from the composition (app/modules.ts), which
 * also gives the company routes people's part of them (companyPeople).
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
export { companyPeople, type PersonRelations } from './relations';
