/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as smsRouter from './sms.router';
import type * as smsTemplatesRouter from './sms-templates.router';
import type * as smsActivities from './sms.activities';
import type { ActivityDeps } from '../../platform/activity-deps';
import { scheduledSmsKind } from './sms-scheduled.kind';
import { smsResource } from './sms.resource';
import { messagingEvents } from './messaging.events';
import type { SmsSchedulerPort } from './sms-workflow-ids';

// Declaration merging: platform names no module.
declare module '../../platform/http/app-deps' {
  interface AppDeps {
    /** Timer workflows of scheduled SMS. */
    smsScheduler: SmsSchedulerPort;
  }
}

/** SMS: messages, templates, the gateway webhook and scheduled sends (one timer workflow each). */
export const messagingModule = defineModule({
  name: 'messaging',
  resources: [smsResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./sms.router') as typeof smsRouter).smsRoutes,
    (require('./sms-templates.router') as typeof smsTemplatesRouter).smsTemplatesRoutes,
  ],
  workflows: [scheduledSmsKind],
  activities: (deps: ActivityDeps) =>
    // Loaded when the worker builds them (the API never loads activity code).
    (require('./sms.activities') as typeof smsActivities).createSmsActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'sms' }),
      gateway: deps.messaging?.gateway,
    }),
  events: messagingEvents,
});
