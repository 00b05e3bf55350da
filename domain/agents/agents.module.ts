import { defineModule } from '../module';
import { agentsRoutes } from '../../api/routes/agents.router';
import { agentResource } from './agents.resource';

export const agentsModule = defineModule({
  name: 'agents',
  resources: [agentResource],
  routes: [agentsRoutes],
});
