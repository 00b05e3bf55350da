import { defineResource } from '../../platform/shared/resource';
import { plainRecord, rowLoader } from '../../platform/shared/record-view';
import { getLead, serializeLead } from './leads.service';
import { LEAD_FIELDS, LEAD_SUMMARY_FIELDS } from './leads.schemas';
import { Lead } from './lead.entity';
import { LeadRoutingRule } from './lead-routing-rule.entity';
import { LeadScoringRule } from './lead-scoring-rule.entity';

export const leadResource = defineResource<Lead>({
  kind: 'lead',
  collection: 'leads',
  entity: Lead,
  ownedEntities: [LeadScoringRule, LeadRoutingRule],
  load: getLead,
  view: serializeLead,
  parents: { companyRef: 'company', personRef: 'person', ownerId: 'user' },
  automation: {
    entityType: 'lead',
    namespace: 'lead',
    lookup: 'Lead',
    load: rowLoader(Lead, (lead) => ({
      namespaces: { lead: plainRecord(lead) },
      links: { personId: lead.personRef, companyId: lead.companyRef, ownerId: lead.ownerId },
    })),
  },
  search: 'lead',
  export: {
    fields: LEAD_FIELDS,
    sortable: ['_id', 'createdAt', 'updatedAt', 'title', 'status', 'source', 'score', 'value'],
    filters: ['status', 'source', 'email', 'ownerId', 'companyRef', 'personRef', 'tags'],
  },
  record: {
    customFieldStorage: 'map',
    summaryFields: [...LEAD_SUMMARY_FIELDS, 'tags'],
    displayName: (r) => String(r.title),
  },
  timeline: { refKind: 'lead', linkColumn: 'leadId' },
});
