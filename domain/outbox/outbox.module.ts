import { defineModule } from '../module';
import { outboxAdminRoutes } from '../../api/routes/outbox-admin.router';

/** Operator views of the outbox (its dispatcher and subscriber registry are platform: domain/outbox/subscribers.ts). */
export const outboxModule = defineModule({
  name: 'outbox',
  routes: [outboxAdminRoutes],
});
