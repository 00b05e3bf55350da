/**
 * The companies module's public surface: what code outside modules/companies may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside. Companies imports nothing of people or deals (both
 * reference companies): deleteCompany takes the people module's unlink and the deals module's detach as parameters.
 */
export { Company } from './company.entity';
export {
  companyView,
  createCompanyBody,
  nameValueView,
  updateCompanyBody,
  type CompanyInput,
  type LinkResultView,
  type UnlinkResultView,
} from './companies.schemas';
export {
  companyLookupQuery,
  companyLookupView,
  findCompanyByKeys,
  lookupCompany,
  type CompanyLookupView,
} from './company-lookup';
export {
  createCompany,
  getCompany,
  serializeCompany,
  updateCompany,
  type ImageResolver,
  type DetachCompanyDeals,
  type UnlinkCompanyPeople,
} from './companies.service';
export type { CompanyRelations, RelatedList } from './relations';
