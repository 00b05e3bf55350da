import { defineModule } from '../module';
import { companiesRoutes } from '../../api/routes/companies.router';
import { companyResource } from './companies.resource';

export const companiesModule = defineModule({
  name: 'companies',
  resources: [companyResource],
  routes: [companiesRoutes],
});
