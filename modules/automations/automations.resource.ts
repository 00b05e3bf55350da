import { defineResource, loadById } from '../../platform/shared/resource';
import { Automation, AutomationExecution, AutomationStep } from './automation.entity';
import { AutomationLookupSnapshot } from './engine/lookup-snapshot.entity';
import { AutomationSkip } from './engine/skip.entity';
// Executions and steps are the mirror of Temporal runs (read under /automations/executions/:executionId).
export const automationResource = defineResource<Automation>({
  kind: 'automation',
  collection: 'automations',
  entity: Automation,
  ownedEntities: [AutomationExecution, AutomationStep, AutomationLookupSnapshot, AutomationSkip],
  load: loadById(Automation, 'automation'),
});
