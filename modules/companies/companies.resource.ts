import { defineResource } from '../../platform/shared/resource';
import { byId, plainRecord } from '../../platform/shared/record-view';
import { getCompany, serializeCompany } from './companies.service';
import { COMPANY_FIELDS, COMPANY_SUMMARY_FIELDS } from './companies.schemas';
import { Company } from './company.entity';

export const companyResource = defineResource<Company>({
  kind: 'company',
  collection: 'companies',
  getPath: '/api/v1/companies/:id',
  entity: Company,
  load: getCompany,
  view: serializeCompany,
  parents: { ownerId: 'user' },
  automation: {
    entityType: 'company',
    namespace: 'company',
    lookup: 'Company',
    load: async (em, id) => {
      const company = await byId(em, Company, id);
      return company ? { namespaces: { company: plainRecord(company) }, links: { ownerId: company.ownerId } } : null;
    },
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
