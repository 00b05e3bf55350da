import { defineModule } from '../module';
import { smsRoutes } from '../../api/routes/sms.router';
import { smsTemplatesRoutes } from '../../api/routes/sms-templates.router';
import { createSmsActivities } from '../../activities/sms.activities';
import type { ActivityDeps } from '../../activities/deps';
import { scheduledSmsKind } from '../workflow-kinds';
import { smsResource } from './sms.resource';

/** SMS: messages, templates, the gateway webhook and scheduled sends (one timer workflow each). */
export const messagingModule = defineModule({
  name: 'messaging',
  resources: [smsResource],
  routes: [smsRoutes, smsTemplatesRoutes],
  workflows: [scheduledSmsKind],
  activities: (deps: ActivityDeps) =>
    createSmsActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'sms' }),
      gateway: deps.messaging?.gateway,
    }),
});
