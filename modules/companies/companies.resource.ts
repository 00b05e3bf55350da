import { defineResource } from '../../platform/shared/resource';
import { plainRecord, rowLoader } from '../../platform/shared/record-view';
import { getCompany, serializeCompany } from './companies.service';
import { COMPANY_FIELDS, COMPANY_SUMMARY_FIELDS } from './companies.schemas';
import { Company } from './company.entity';

export const companyResource = defineResource<Company>({
  kind: 'company',
  collection: 'companies',
  entity: Company,
  load: getCompany,
  view: serializeCompany,
  parents: { ownerId: 'user' },
  automation: {
    entityType: 'company',
    namespace: 'company',
    lookup: 'Company',
    load: rowLoader(Company, (company) => ({
      namespaces: { company: plainRecord(company) },
      links: { ownerId: company.ownerId },
    })),
  },
  search: 'company',
  export: {
    fields: COMPANY_FIELDS,
    sortable: ['_id', 'createdAt', 'updatedAt', 'name', 'cvr', 'city', 'employees'],
    filters: ['cvr', 'email', 'city', 'zip', 'country', 'industry', 'ownerId', 'tags'],
  },
  record: { customFieldStorage: 'pairs', summaryFields: COMPANY_SUMMARY_FIELDS, displayName: (r) => String(r.name) },
  timeline: { refKind: 'company', linkColumn: 'companyId' },
});
