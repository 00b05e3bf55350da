import { defineResource } from '../../platform/shared/resource';
import { linkedRecordLoader } from '../../platform/shared/record-view';
import { getCall } from './calls.service';
import { serializeCall } from './call-view';
import { Call } from './call.entity';

export const callResource = defineResource<Call>({
  kind: 'call',
  collection: 'calls',
  entity: Call,
  load: getCall,
  view: (c) => serializeCall(c),
  parents: { companyId: 'company', personId: 'person', leadId: 'lead', dealId: 'deal', ownerId: 'user' },
  automation: {
    entityType: 'call',
    namespace: 'call',
    load: linkedRecordLoader(Call, 'call'),
  },
});
