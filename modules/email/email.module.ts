/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as emailsRouter from './emails.router';
import type * as emailTemplatesRouter from './email-templates.router';
import type * as emailInboundRouter from './email-inbound.router';
import type * as emailTrackingRouter from './email-tracking.router';
import type * as emailBulkRouter from './email-bulk.router';
import type * as emailBulkActivities from './email-bulk.activities';
import type { ActivityDeps } from '../../platform/activity-deps';
import { componentDeps } from '../../platform/component-deps';
import { emailBulkKind } from './email-bulk.kind';
import { emailResource } from './email.resource';
import { emailEvents } from './email.events';
import type { MessagingDeps } from './messaging-deps';

// The e-mail transports (connected mailboxes, fallback sender) and the SMS gateway, as each composition root shares
// them (declaration merging: platform names no module).
declare module '../../platform/http/app-deps' {
  interface AppDeps {
    /** Built once by the API; closed with the runtime. */
    messaging: MessagingDeps;
  }
}
declare module '../../platform/activity-deps' {
  interface ActivityDeps {
    /** Default: built from config on first use (modules/email/messaging-deps.ts). */
    messaging?: MessagingDeps;
  }
}
declare module '../../platform/outbox/subscriber' {
  interface SubscriberDeps {
    /** The worker builds them once; absent: built on first use. */
    messaging?: MessagingDeps;
  }
}

/** E-mail: mailboxes, messages, templates, inbound mail, tracking and bulk sends (one workflow per send). */
export const emailModule = defineModule({
  name: 'email',
  resources: [emailResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./emails.router') as typeof emailsRouter).emailsRoutes,
    (require('./email-templates.router') as typeof emailTemplatesRouter).emailTemplatesRoutes,
    (require('./email-inbound.router') as typeof emailInboundRouter).emailInboundRoutes,
    (require('./email-tracking.router') as typeof emailTrackingRouter).emailTrackingRoutes,
    (require('./email-bulk.router') as typeof emailBulkRouter).emailBulkRoutes,
  ],
  workflows: [emailBulkKind],
  activities: (deps: ActivityDeps) =>
    // Loaded when the worker builds them (the API never loads activity code).
    (require('./email-bulk.activities') as typeof emailBulkActivities).createEmailBulkActivities(
      componentDeps(deps, 'email-bulk'),
    ),
  events: emailEvents,
});
