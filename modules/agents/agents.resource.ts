import { defineResource, loadById } from '../../platform/shared/resource';
import { Agent } from './agent.entity';
export const agentResource = defineResource<Agent>({
  kind: 'agent',
  collection: 'agents',
  entity: Agent,
  load: loadById(Agent, 'agent'),
});
