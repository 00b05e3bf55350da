/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../module';
import type * as emailsRouter from '../../api/routes/emails.router';
import type * as emailTemplatesRouter from '../../api/routes/email-templates.router';
import type * as emailInboundRouter from '../../api/routes/email-inbound.router';
import type * as emailTrackingRouter from '../../api/routes/email-tracking.router';
import type * as emailBulkRouter from '../../api/routes/email-bulk.router';
import type * as emailBulkActivities from '../../activities/email-bulk.activities';
import type { ActivityDeps } from '../../activities/deps';
import { emailBulkKind } from '../workflow-kinds';
import { emailResource } from './email.resource';

/** E-mail: mailboxes, messages, templates, inbound mail, tracking and bulk sends (one workflow per send). */
export const emailModule = defineModule({
  name: 'email',
  resources: [emailResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('../../api/routes/emails.router') as typeof emailsRouter).emailsRoutes,
    (require('../../api/routes/email-templates.router') as typeof emailTemplatesRouter).emailTemplatesRoutes,
    (require('../../api/routes/email-inbound.router') as typeof emailInboundRouter).emailInboundRoutes,
    (require('../../api/routes/email-tracking.router') as typeof emailTrackingRouter).emailTrackingRoutes,
    (require('../../api/routes/email-bulk.router') as typeof emailBulkRouter).emailBulkRoutes,
  ],
  workflows: [emailBulkKind],
  activities: (deps: ActivityDeps) =>
    // Loaded when the worker builds them (the API never loads activity code).
    (require('../../activities/email-bulk.activities') as typeof emailBulkActivities).createEmailBulkActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'email-bulk' }),
      messaging: deps.messaging,
    }),
});
