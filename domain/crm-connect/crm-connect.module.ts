import { defineModule } from '../module';
import { crmConnectRoutes } from '../../api/routes/crm-connect.router';

export const crmConnectModule = defineModule({
  name: 'crm-connect',
  routes: [crmConnectRoutes],
});
