import { defineModule } from '../module';
import { emailsRoutes } from '../../api/routes/emails.router';
import { emailTemplatesRoutes } from '../../api/routes/email-templates.router';
import { emailInboundRoutes } from '../../api/routes/email-inbound.router';
import { emailTrackingRoutes } from '../../api/routes/email-tracking.router';
import { emailBulkRoutes } from '../../api/routes/email-bulk.router';
import { createEmailBulkActivities } from '../../activities/email-bulk.activities';
import type { ActivityDeps } from '../../activities/deps';
import { emailBulkKind } from '../workflow-kinds';
import { emailResource } from './email.resource';

/** E-mail: mailboxes, messages, templates, inbound mail, tracking and bulk sends (one workflow per send). */
export const emailModule = defineModule({
  name: 'email',
  resources: [emailResource],
  routes: [emailsRoutes, emailTemplatesRoutes, emailInboundRoutes, emailTrackingRoutes, emailBulkRoutes],
  workflows: [emailBulkKind],
  activities: (deps: ActivityDeps) =>
    createEmailBulkActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'email-bulk' }),
      messaging: deps.messaging,
    }),
});
