import { defineResource } from '../../platform/shared/resource';
import { rowLoader } from '../../platform/shared/record-view';
import { dealContext } from './deal-context';
import { getDeal, serializeDeal } from './deals.service';
import { DEAL_FIELDS, DEAL_SUMMARY_FIELDS } from './deals.schemas';
import { Deal } from './deal.entity';
import { Flow, FlowStage } from './flow.entity';

export const dealResource = defineResource<Deal>({
  kind: 'deal',
  collection: 'deals',
  entity: Deal,
  ownedEntities: [Flow, FlowStage],
  load: getDeal,
  view: serializeDeal,
  parents: { company: 'company', personRef: 'person', leadRef: 'lead', flowId: 'flow', ownerId: 'user' },
  automation: {
    entityType: 'deal',
    namespace: 'deal',
    lookup: 'Deal',
    load: rowLoader(Deal, async (deal, em) => ({
      namespaces: { deal: await dealContext(em, deal) },
      links: { personId: deal.personRef, companyId: deal.company, ownerId: deal.ownerId, leadId: deal.leadRef },
    })),
  },
  search: 'deal',
  export: {
    fields: DEAL_FIELDS,
    sortable: ['_id', 'createdAt', 'updatedAt', 'title', 'value', 'status', 'probability', 'wonDate', 'lostDate'],
    filters: ['status', 'flowId', 'stageId', 'priority', 'ownerId', 'company', 'personRef', 'leadRef', 'tags'],
  },
  record: {
    customFieldStorage: 'map',
    summaryFields: [...DEAL_SUMMARY_FIELDS, 'tags'],
    displayName: (r) => String(r.title),
  },
  timeline: { refKind: 'deal', linkColumn: 'dealId' },
});
