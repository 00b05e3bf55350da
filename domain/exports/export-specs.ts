import { COMPANY_FIELDS } from '../companies/companies.schemas';
import { DEAL_FIELDS } from '../deals/deals.schemas';
import { LEAD_FIELDS } from '../leads/leads.schemas';
import { PERSON_FIELDS } from '../people/people.schemas';
import type { RecordType } from '../shared/record-kinds';

/** What an export of one record type may select, sort by and filter on (stored fields, API names). */
export interface ExportSpec {
  type: RecordType;
  /** Same names and order as the API's reads of this type. */
  fields: readonly string[];
  sortable: readonly string[];
  /** Equality filters (a value, a list = any of, null = empty); `tags` means "has all of these tags". */
  filters: readonly string[];
}

const COMMON_SORT = ['_id', 'createdAt', 'updatedAt'] as const;

export const EXPORT_SPECS: Record<RecordType, ExportSpec> = {
  company: {
    type: 'company',
    fields: COMPANY_FIELDS,
    sortable: [...COMMON_SORT, 'name', 'cvr', 'city', 'employees'],
    filters: ['cvr', 'email', 'city', 'zip', 'country', 'industry', 'ownerId', 'tags'],
  },
  person: {
    type: 'person',
    fields: PERSON_FIELDS,
    sortable: [...COMMON_SORT, 'firstName', 'lastName'],
    filters: ['companyId', 'title', 'ownerId', 'tags'],
  },
  lead: {
    type: 'lead',
    fields: LEAD_FIELDS,
    sortable: [...COMMON_SORT, 'title', 'status', 'source', 'score', 'value'],
    filters: ['status', 'source', 'email', 'ownerId', 'companyRef', 'personRef', 'tags'],
  },
  deal: {
    type: 'deal',
    fields: DEAL_FIELDS,
    sortable: [...COMMON_SORT, 'title', 'value', 'status', 'probability', 'wonDate', 'lostDate'],
    filters: ['status', 'flowId', 'stageId', 'priority', 'ownerId', 'company', 'personRef', 'leadRef', 'tags'],
  },
};

export const EXPORT_PATHS: Record<RecordType, string> = { company: 'companies', person: 'people', lead: 'leads', deal: 'deals' };
export const MAX_EXPORT_ROWS = 10_000;
export const DEFAULT_EXPORT_ROWS = 1000;
